import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError, readJsonlAll } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompletionRequest } from './completion-types';
import { createLlmClient } from './create-llm-client';
import { repeatClient } from './repeat-client';
import { pendingFileFor } from './replay-client';
import { cacheKeyFor, replayKeyFor } from './request-key';
import { replayPendingLineSchema } from './schemas/replay-store';

const request: CompletionRequest = {
  system: 'judge',
  messages: [{ role: 'user', content: 'Is the sky blue?' }],
  temperature: 0,
  maxTokens: 50,
};
const key = (r: CompletionRequest) =>
  cacheKeyFor({ provider: 'openai', model: 'm', baseUrl: 'http://x/v1', request: r });

describe('the repeat index in the keys', () => {
  it('leaves every key as it was for repeat 0 and changes it from repeat 1 on', () => {
    // The key of the ordinary call as it was before repeats existed: a change would orphan every cache entry.
    expect(key(request)).toBe('ca534e5ede8878eff482a97ab5748c7ee83a6d0bae92bb683f1ce945038861cf');
    expect(key({ ...request, repeat: 0 })).toBe(key(request));
    expect(key({ ...request, repeat: 1 })).not.toBe(key(request));
    expect(key({ ...request, repeat: 2 })).not.toBe(key({ ...request, repeat: 1 }));
    expect(key({ ...request, repeat: 1 })).toBe(key({ ...request, repeat: 1 }));
    expect(replayKeyFor({ ...request, repeat: 0 })).toBe(replayKeyFor(request));
    expect(replayKeyFor({ ...request, repeat: 1 })).not.toBe(replayKeyFor(request));
    expect(() => key({ ...request, repeat: -1 })).toThrow(/non-negative integer/);
    expect(() => key({ ...request, repeat: 1.5 })).toThrow(/non-negative integer/);
  });
});

describe('repeatClient through the real SDKs and the fake server', () => {
  let server: FakeLlmServer;
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    server = await startFakeLlmServer();
    ({ dir, cleanup } = await makeTempDir('xsb-llm-repeat-'));
  });
  afterAll(async () => {
    await server.close();
    await cleanup();
  });

  it.each(['openai:gpt-test', 'anthropic:claude-test'])(
    '%s: each repeat is asked again and cached on its own; the index is never sent',
    async (spec) => {
      let asked = 0;
      server.setHandler(() => {
        asked += 1;
        return { text: `answer ${asked}` };
      });
      const client = createLlmClient(spec, {
        env: fakeProviderEnv(server),
        cacheDir: join(dir, spec.replace(':', '_')),
      });
      const first = server.requests.length;
      expect((await client.complete(request)).text).toBe('answer 1');
      expect(repeatClient(client, 0)).toBe(client);
      expect((await repeatClient(client, 0).complete(request)).fromCache).toBe(true);
      const retest = await repeatClient(client, 1).complete(request);
      expect(retest).toMatchObject({ text: 'answer 2', fromCache: false });
      expect((await repeatClient(client, 2).complete(request)).text).toBe('answer 3');
      // Asked again, repeat 1 is its own cache entry.
      expect(await repeatClient(client, 1).complete(request)).toMatchObject({
        text: 'answer 2',
        fromCache: true,
      });
      const sent = server.requests.slice(first);
      expect(sent).toHaveLength(3);
      expect(sent.map((r) => JSON.stringify(r.body)).every((body) => !body.includes('repeat'))).toBe(true);
      expect(new Set(sent.map((r) => JSON.stringify(r.body))).size).toBe(1);
    },
  );
});

describe('repeats against a replay store', () => {
  it('misses (naming the repeat) where the store holds only the first answer; record keeps each repeat apart', async () => {
    const { dir, cleanup } = await makeTempDir('xsb-llm-repeat-replay-');
    try {
      const store = join(dir, 'store.jsonl');
      await writeFile(
        store,
        `${JSON.stringify({ key: replayKeyFor(request), model: 'm', completion: 'yes' })}\n`,
      );
      const replay = createLlmClient(`replay:${store}`);
      expect((await replay.complete(request)).text).toBe('yes');
      const miss = await repeatClient(replay, 1)
        .complete(request)
        .catch((e: unknown) => e);
      expect(miss).toBeInstanceOf(InputError);
      expect((miss as InputError).message).toMatch(
        /test–retest repeat 1: a store holds one answer per prompt and repeat/,
      );
      const recorder = createLlmClient(`record:${store}`);
      for (const repeat of [1, 2])
        await repeatClient(recorder, repeat)
          .complete(request)
          .catch(() => undefined);
      const pending = await readJsonlAll(pendingFileFor(store), replayPendingLineSchema);
      expect(pending.map((line) => [line.key, line.repeat])).toEqual([
        [replayKeyFor({ ...request, repeat: 1 }), 1],
        [replayKeyFor({ ...request, repeat: 2 }), 2],
      ]);
    } finally {
      await cleanup();
    }
  });
});

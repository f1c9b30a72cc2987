import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, exitCodeFor, InputError, readJsonlAll } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CompletionRequest } from './completion-types';
import { createLlmClient } from './create-llm-client';
import { pendingFileFor, replayStoreModelLabel } from './replay-client';
import { replayKeyFor } from './request-key';
import { replayPendingLineSchema } from './schemas/replay-store';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-llm-replay-'));
});
afterEach(async () => {
  await cleanup();
});

const prompts: CompletionRequest[] = [
  {
    system: 'You write probes.',
    messages: [{ role: 'user', content: 'Source: the sky is blue.' }],
    stage: 'probes',
  },
  {
    system: 'You judge.',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Slide:' },
          { type: 'image', mediaType: 'image/png', data: new Uint8Array([9, 9, 9]) },
        ],
      },
    ],
  },
];

describe('record and replay (spec 002)', () => {
  it('record → write completions → replay round trip', async () => {
    const store = join(dir, 'llm', 'judge.jsonl');
    const recorder = createLlmClient(`record:${store}`);
    for (const prompt of prompts) {
      const error = await recorder.complete(prompt).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).message).toContain(replayKeyFor(prompt));
    }
    // Asking again records nothing twice.
    await recorder.complete(prompts[0]!).catch(() => undefined);
    const pending = await readJsonlAll(pendingFileFor(store), replayPendingLineSchema);
    expect(pending.map((line) => line.key)).toEqual(prompts.map((p) => replayKeyFor(p)));
    expect(pending[0]).toMatchObject({
      system: 'You write probes.',
      prompt: 'Source: the sky is blue.',
      stage: 'probes',
    });
    expect(pending[1]?.prompt).toMatch(/\[image image\/png sha256:[0-9a-f]{64}\]/);

    await writeFile(
      store,
      pending
        .map(
          (line, i) => `${JSON.stringify({ key: line.key, model: 'model-x', completion: `answer ${i}` })}\n`,
        )
        .join(''),
    );
    const replay = createLlmClient(`replay:${store}`);
    const results = await Promise.all(prompts.map((p) => replay.complete(p)));
    expect(results.map((r) => r.text)).toEqual(['answer 0', 'answer 1']);
    expect(results[0]).toMatchObject({ model: 'model-x', judgeId: `replay:${store}`, retries: 0 });
    // Record mode answers what the store already holds.
    expect((await createLlmClient(`record:${store}`).complete(prompts[0]!)).text).toBe('answer 0');
    // The label artifacts record beside the judge id.
    expect(replayStoreModelLabel(store)).toBe('model-x');
    expect(replayStoreModelLabel(join(dir, 'absent.jsonl'))).toBeUndefined();
  });

  it('a replay miss fails the row with the missing key in the message', async () => {
    const store = join(dir, 'store.jsonl');
    await writeFile(store, `${JSON.stringify({ key: 'other', model: 'm', completion: 'x' })}\n`);
    const error = await createLlmClient(`replay:${store}`)
      .complete(prompts[0]!)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toContain(replayKeyFor(prompts[0]!));
    expect((error as InputError).message).toContain(store);
    expect(exitCodeFor(error)).toBe(1);
  });

  it('a missing replay store is a configuration error at creation', () => {
    expect(() => createLlmClient(`replay:${join(dir, 'absent.jsonl')}`)).toThrow(ConfigError);
  });

  it('refuses a store that mixes model labels', async () => {
    const store = join(dir, 'mixed.jsonl');
    await writeFile(store, `${JSON.stringify({ key: 'a', model: 'm1', completion: 'x' })}\n`);
    await appendFile(store, `${JSON.stringify({ key: 'b', model: 'm2', completion: 'y' })}\n`);
    expect(() => createLlmClient(`replay:${store}`)).toThrow(/mixes model labels/);
  });

  it('refuses a malformed store line naming file and line', async () => {
    const store = join(dir, 'bad.jsonl');
    await writeFile(store, `${JSON.stringify({ key: 'a', model: 'm', completion: 'x' })}\n{"key": 1}\n`);
    expect(() => createLlmClient(`replay:${store}`)).toThrow(`${store}:2`);
  });

  it('writes a ledger line for replayed answers and misses', async () => {
    const store = join(dir, 's.jsonl');
    const ledgerFile = join(dir, 'usage.jsonl');
    await writeFile(
      store,
      `${JSON.stringify({ key: replayKeyFor(prompts[0]!), model: 'm', completion: 'ok' })}\n`,
    );
    const replay = createLlmClient(`replay:${store}`, { ledgerFile, stage: 'eval' });
    await replay.complete(prompts[0]!);
    await replay.complete(prompts[1]!).catch(() => undefined);
    const lines = (await readFile(ledgerFile, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.stage, l.ok, l.error])).toEqual([
      ['probes', true, undefined],
      ['eval', false, 'replay_miss'],
    ]);
  });
});

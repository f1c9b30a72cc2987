import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, readJsonlAll } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CompletionRequest } from './completion-types';
import { createLlmClient } from './create-llm-client';
import { fillLabelFor, fillReplayStore, requestFromPending } from './fill-replay-store';
import { pendingFileFor } from './replay-client';
import { replayKeyFor } from './request-key';
import { replayPendingLineSchema, replayStoreLineSchema } from './schemas/replay-store';

let server: FakeLlmServer;
let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  server = await startFakeLlmServer({ handler: (r) => ({ text: `answer to ${r.text}` }) });
});
afterAll(() => server.close());
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-llm-fill-'));
  server.setHandler((r) => ({ text: `answer to ${r.text}` }));
  server.setBatchPlan(() => ({}));
});
afterEach(() => cleanup());

const question = (i: number): CompletionRequest => ({
  system: 'You judge.',
  messages: [{ role: 'user', content: [{ type: 'text', text: `question ${i}`, cacheBreakpoint: true }] }],
  temperature: 0,
  maxTokens: 50,
  seed: i,
  stage: 'eval.answerability',
});

const batch = { idleMs: 30, pollIntervalMs: 10, maxPollIntervalMs: 20 };

/** Records the questions as pending prompts of a new store. */
async function record(store: string, requests: CompletionRequest[]): Promise<void> {
  const recorder = createLlmClient(`record:${store}`);
  for (const request of requests) await recorder.complete(request).catch(() => undefined);
}

describe.each(['anthropic:claude-fill', 'openai:gpt-fill'])('%s', (judge) => {
  const options = () => ({ env: fakeProviderEnv(server) as Record<string, string> });

  it('record → fill through the batch API → replay answers every prompt as one model', async () => {
    const store = join(dir, 'judge.jsonl');
    const asked = [0, 1, 2, 3].map(question);
    await record(store, asked);
    const pending = await readJsonlAll(pendingFileFor(store), replayPendingLineSchema);
    // The pending line keeps what the stage asked with, so the fill sends the same request.
    expect(pending[1]).toMatchObject({ seed: 1, temperature: 0, maxTokens: 50, stage: 'eval.answerability' });

    const before = server.batches.length;
    const client = createLlmClient(judge, { ...options(), batch: { stateDir: dir, ...batch } });
    const result = await fillReplayStore({ store, client, concurrency: client.preferredConcurrency ?? 8 });
    expect(result).toMatchObject({ label: judge, pending: 4, alreadyStored: 0, filled: 4, failures: [] });
    expect(server.batches.length - before).toBe(1);
    expect(server.batches.at(-1)?.customIds).toHaveLength(4);
    const lines = await readJsonlAll(store, replayStoreLineSchema);
    expect(new Set(lines.map((line) => line.model))).toEqual(new Set([judge]));
    expect(lines.map((line) => line.key).sort()).toEqual(asked.map((r) => replayKeyFor(r)).sort());

    const replay = createLlmClient(`replay:${store}`);
    const answers = await Promise.all(asked.map((r) => replay.complete(r)));
    expect(answers.map((a) => [a.text, a.model])).toEqual(
      asked.map((_, i) => [`answer to question ${i}`, judge]),
    );

    // Nothing is asked twice: a second fill finds every key stored.
    const requestsBefore = server.requestCount;
    const again = await fillReplayStore({ store, client: createLlmClient(judge, options()) });
    expect(again).toMatchObject({ pending: 4, alreadyStored: 4, filled: 0 });
    expect(server.requestCount).toBe(requestsBefore);
  });

  it('a record judge with a filling client answers misses from the judge and stores each prompt once', async () => {
    const store = join(dir, 'judge.jsonl');
    const fill = createLlmClient(judge, { ...options(), batch: { stateDir: dir, ...batch } });
    const recorder = createLlmClient(`record:${store}`, { fill });
    // Two of the calls ask the same prompt at the same time.
    const asked = [question(7), question(8), question(7)];
    const answers = await Promise.all(asked.map((r) => recorder.complete(r)));
    expect(answers.map((a) => [a.text, a.model, a.judgeId])).toEqual([
      ['answer to question 7', judge, `record:${store}`],
      ['answer to question 8', judge, `record:${store}`],
      ['answer to question 7', judge, `record:${store}`],
    ]);
    expect(answers[0]?.usage.inputTokens).toBe(0);
    const lines = await readJsonlAll(store, replayStoreLineSchema);
    expect(lines).toHaveLength(2);
    await expect(readFile(pendingFileFor(store), 'utf8')).rejects.toThrow(/ENOENT/);
    // A later call is a plain store hit: no judge call.
    const count = server.requestCount;
    expect((await recorder.complete(question(8))).text).toBe('answer to question 8');
    expect(server.requestCount).toBe(count);
  });
});

describe('fillReplayStore', () => {
  const env = () => fakeProviderEnv(server) as Record<string, string>;

  it('refuses a store that answers as another model, and a judge that is not a provider', async () => {
    const store = join(dir, 'judge.jsonl');
    await writeFile(store, `${JSON.stringify({ key: 'k', model: 'someone-else', completion: 'x' })}\n`);
    await record(store, [question(1)]);
    const client = createLlmClient('openai:gpt-fill', { env: env() });
    await expect(fillReplayStore({ store, client })).rejects.toThrow(ConfigError);
    await expect(fillReplayStore({ store, client })).rejects.toThrow(/answers as "someone-else"/);
    expect(() => createLlmClient(`record:${store}`, { fill: client })).toThrow(/mix two models/);
    expect(() => createLlmClient(`replay:${store}`, { fill: client })).toThrow(/needs record:/);
    expect(() => fillLabelFor('lexical')).toThrow(/anthropic:<model> or openai:<model>/);
    await expect(fillReplayStore({ store: join(dir, 'none.jsonl'), client })).rejects.toThrow(
      /none\.pending\.jsonl does not exist/,
    );
  });

  it('reports prompts it cannot answer and goes on with the others', async () => {
    const store = join(dir, 'judge.jsonl');
    const withImage: CompletionRequest = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Slide:' },
            { type: 'image', mediaType: 'image/png', data: new Uint8Array([1, 2, 3]) },
          ],
        },
      ],
    };
    await record(store, [question(1), withImage, question(2), question(3)]);
    // A hand-edited line no longer matches its key.
    const lines = (await readFile(pendingFileFor(store), 'utf8')).trim().split('\n');
    const edited = JSON.parse(lines[3]!);
    edited.messages[0].content[0].text = 'question 3, edited';
    lines[3] = JSON.stringify(edited);
    await writeFile(pendingFileFor(store), `${lines.join('\n')}\n`);
    await appendFile(pendingFileFor(store), `${lines[0]}\n`); // a duplicate key counts once
    server.setHandler((r) =>
      r.text === 'question 2'
        ? { fault: { kind: 'status', status: 400, message: 'bad prompt' } }
        : { text: 'ok' },
    );
    const result = await fillReplayStore({
      store,
      client: createLlmClient('openai:gpt-fill', { env: env() }),
    });
    expect(result).toMatchObject({ pending: 4, filled: 1 });
    const reasons = result.failures.map((failure) => failure.error).join('\n');
    expect(result.failures).toHaveLength(3);
    expect(reasons).toMatch(/image part, which a pending line keeps by hash only/);
    expect(reasons).toMatch(/was the line edited/);
    expect(reasons).toMatch(/400/);
    expect((await readJsonlAll(store, replayStoreLineSchema)).map((line) => line.key)).toEqual([
      replayKeyFor(question(1)),
    ]);
  });

  it('rebuilds the recorded request with its sampling settings', async () => {
    const store = join(dir, 'judge.jsonl');
    await record(store, [
      { ...question(5), stop: ['END'], responseSchema: { name: 'x', schema: { type: 'object' } } },
    ]);
    const [line] = await readJsonlAll(pendingFileFor(store), replayPendingLineSchema);
    expect(requestFromPending(line!)).toEqual({
      system: 'You judge.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'question 5' }] }],
      temperature: 0,
      maxTokens: 50,
      seed: 5,
      stop: ['END'],
      responseSchema: { name: 'x', schema: { type: 'object' } },
      stage: 'eval.answerability',
    });
  });
});

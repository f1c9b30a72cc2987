import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { copyOfflineDemo } from '@xsb/eval/testing';
import { createJudge, createLlmClient, judgeFromClient, offlineJudge } from '@xsb/llm';
import { type FakeLlmRequest, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePairAnswer, parseRankAnswer } from './rank-prompt';
import { runRank } from './run-rank';

const SYSTEMS = ['xsb-baseline__audience_agnostic', 'xsb-baseline__audience_conditioned'];
let root: string;
let cleanup: () => Promise<void>;
let dataDir: string;

beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-rank-'));
  ({ dataDir } = await copyOfflineDemo(join(root, 'demo')));
}, 300_000);
afterAll(() => cleanup());

describe('parseRankAnswer and parsePairAnswer', () => {
  it('read a permutation of the deck numbers, or 1 or 2, and nothing else', () => {
    expect(parseRankAnswer('Sure:\n```json\n{"ranking": [2, 3, 1]}\n```', 3)).toEqual([2, 3, 1]);
    expect(parseRankAnswer('{"ranking": ["Deck 2", "Deck 1"]}', 2)).toEqual([2, 1]);
    for (const bad of ['{"ranking": [1, 1, 2]}', '{"ranking": [1, 2]}', '{"ranking": [0, 1, 2]}', 'no'])
      expect(parseRankAnswer(bad, 3)).toBeNull();
    expect(parsePairAnswer('{"better": 2}')).toBe(2);
    expect(parsePairAnswer('{"better": "Deck 1"}')).toBe(1);
    expect(parsePairAnswer('{"better": 3}')).toBeNull();
  });
});

describe('runRank', () => {
  it('offline: the lexical rule on every case and audience, reused on a rerun', async () => {
    const judge = { ...offlineJudge, id: 'lexical' };
    const first = await runRank({ dataDir, run: 'demo', judge, systems: SYSTEMS });
    // 3 cases × 3 audiences, each with both systems' decks.
    expect(first.records).toHaveLength(9);
    expect(first.failures).toEqual([]);
    for (const record of first.records) {
      expect(record.asks).toHaveLength(3);
      const scores = Object.values(record.scores) as number[];
      // Two decks: Borda points 1 and 0 per ask, so the means add up to 1.
      expect(scores.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    }
    const events: string[] = [];
    const again = await runRank({
      dataDir,
      run: 'demo',
      judge,
      systems: SYSTEMS,
      onEvent: (e) => events.push(e.type),
    });
    expect(again.records).toEqual(first.records);
    expect(events.filter((type) => type === 'unit-done')).toHaveLength(27);
  }, 120_000);

  it('listwise through the Anthropic wire format: k rotated orders, blind prompts with slide images, Borda points', async () => {
    const requests: FakeLlmRequest[] = [];
    // A judge with a pure position bias: it always puts the deck shown second first.
    const server = await startFakeLlmServer({
      handler: (request) => {
        requests.push(request);
        return { text: '{"ranking": [2, 1]}' };
      },
    });
    try {
      const client = createLlmClient('anthropic:claude-rank', {
        env: fakeProviderEnv(server),
        noCache: true,
      });
      const result = await runRank({
        dataDir,
        run: 'demo',
        judge: judgeFromClient('anthropic:claude-rank', client),
        systems: SYSTEMS,
        cases: ['cs_raft_consensus'],
        k: 4,
      });
      expect(requests).toHaveLength(3 * 4);
      expect(requests.every((request) => request.provider === 'anthropic')).toBe(true);
      for (const request of requests) {
        // A judge that reads images sees every slide rendered, each deck's after its heading.
        const content = (request.body.messages as Array<{ content: Array<{ type: string }> }>)[0]!.content;
        expect(content.filter((part) => part.type === 'image').length).toBeGreaterThan(4);
        expect(request.text).toContain('Deck 1 (');
        expect(request.text).toContain('[Deck 2, slide 1]');
        for (const secret of ['xsb-baseline', 'audience_agnostic', 'audience_conditioned'])
          expect(request.text).not.toContain(secret);
      }
      for (const record of result.records) {
        for (const ask of record.asks) expect(ask.answer).toEqual([ask.shown[1], ask.shown[0]]);
        // Rotations put each system second in half the orders: position bias averages out.
        const second = record.asks.filter((ask) => ask.shown[1] === SYSTEMS[0]).length;
        expect(second).toBe(2);
        expect(record.scores[SYSTEMS[0]!]).toBeCloseTo(second / 4, 12);
      }
      expect(new Set(result.records.flatMap((r) => r.asks.map((a) => a.shown.join()))).size).toBe(2);
    } finally {
      await server.close();
    }
  }, 120_000);

  it.each([
    ['openai', 'openai:gpt-rank'],
    ['anthropic', 'anthropic:claude-pair'],
  ] as const)(
    'pairwise through the %s wire format: both orders, the swap disagreement, Bradley–Terry with intervals',
    async (provider, spec) => {
      const server = await startFakeLlmServer({ handler: () => ({ text: '{"better": 1}' }) });
      try {
        const client = createLlmClient(spec, { env: fakeProviderEnv(server), noCache: true });
        const result = await runRank({
          dataDir,
          run: 'demo',
          // A text-only judge: the decks' visible text, no image.
          judge: judgeFromClient(spec, client, { readsImages: false }),
          systems: SYSTEMS,
          mode: 'pairwise',
          resamples: 200,
        });
        expect(server.requests).toHaveLength(9 * 2);
        expect(server.requests.every((request) => request.provider === provider)).toBe(true);
        expect(
          server.requests.every((request) => !/image_url|"type":"image"/.test(JSON.stringify(request.body))),
        ).toBe(true);
        expect(server.requests[0]!.text).toContain('--- Slide 1 ---');
        // Always the first shown: each pair's two orders disagree, and neither system is stronger.
        expect(result.records.every((record) => record.swap_disagreement === 1)).toBe(true);
        expect(result.summary).toMatchObject({ cases: 3, pairs: 9, swap_disagreement: 1 });
        for (const system of result.summary!.systems) {
          expect(system.strength).toBeCloseTo(0, 9);
          expect(system.ci_low).not.toBeNull();
        }
      } finally {
        await server.close();
      }
    },
    120_000,
  );

  it.each([
    ['listwise', '{"ranking": [1, 2]}'],
    ['pairwise', '{"better": 1}'],
  ] as const)(
    '%s: records its prompts, answers from a replay store, and a case answered unreadably twice fails alone',
    async (mode, answer) => {
      const store = join(root, `rank-store-${mode}.jsonl`);
      const options = { dataDir, run: 'demo', systems: SYSTEMS, audiences: ['learners'], k: 2, mode };
      // record: every ask fails and its rendered prompt goes to <store>.pending.jsonl.
      const recorded = await runRank({
        ...options,
        judge: createJudge(`record:${store}`, { noCache: true, capabilities: { readsImages: false } }),
      });
      expect(recorded.records).toEqual([]);
      expect(recorded.failures).toHaveLength(3);
      const pending = (await readFile(join(root, `rank-store-${mode}.pending.jsonl`), 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { key: string; prompt: string });
      // Two asks per case: two rotations (listwise) or the pair both ways (pairwise).
      expect(pending).toHaveLength(3 * 2);
      // The store answers "deck 1 first" everywhere but on the heat pump case, where the answer never reads.
      await writeFile(
        store,
        pending
          .map((line) =>
            JSON.stringify({
              key: line.key,
              model: 'claude-rank',
              completion: line.prompt.includes('Heat Pump') ? 'I cannot decide.' : answer,
            }),
          )
          .join('\n'),
      );
      const replayed = await runRank({
        ...options,
        judge: createJudge(`replay:${store}`, { noCache: true, capabilities: { readsImages: false } }),
      });
      expect(replayed.records.map((record) => record.case)).toEqual([
        'cs_raft_consensus',
        'ocean_coral_bleaching',
      ]);
      for (const record of replayed.records)
        for (const ask of record.asks) expect(ask.answer).toEqual(ask.shown);
      // The corrective retry is a new prompt the store does not hold: that case fails, named, and the others stand.
      expect(replayed.failures).toEqual([
        expect.objectContaining({ where: expect.stringContaining('energy_heat_pump_pilot.json') }),
      ]);
      expect(replayed.failures[0]!.error).toMatch(/replay store has no completion/);
    },
    120_000,
  );

  it('fails a case, named, when the answer does not read twice, and writes no record of it', async () => {
    const server = await startFakeLlmServer({ handler: () => ({ text: 'Both decks are lovely.' }) });
    try {
      const client = createLlmClient('anthropic:claude-vague', {
        env: fakeProviderEnv(server),
        noCache: true,
      });
      const result = await runRank({
        dataDir,
        run: 'demo',
        judge: judgeFromClient('anthropic:claude-vague', client, { readsImages: false }),
        systems: SYSTEMS,
        cases: ['ocean_coral_bleaching'],
        audiences: ['learners'],
        k: 1,
      });
      // The ask and its one corrective retry.
      expect(server.requests).toHaveLength(2);
      expect(result.records).toEqual([]);
      expect(result.failures).toEqual([
        {
          where: expect.stringContaining('ocean_coral_bleaching.json'),
          error: expect.stringMatching(/did not read twice \(last: "Both decks are lovely\."\)/),
        },
      ]);
    } finally {
      await server.close();
    }
  }, 120_000);
});

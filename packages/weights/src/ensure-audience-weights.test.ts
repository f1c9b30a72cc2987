import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  audienceWeightSchema,
  exitCodeFor,
  type Probe,
  probeSchema,
  RunLayout,
  readJsonlAll,
  type StageEvent,
  writeJsonlAtomic,
} from '@xsb/core';
import { callsMade, makeTempDir } from '@xsb/core/testing';
import { createLlmClient } from '@xsb/llm';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadAudienceProfiles } from './audience-profiles';
import { ensureAudienceWeights, findWeightsBankMismatch, weightsFileForK } from './ensure-audience-weights';
import { LexicalUtilityJudge } from './lexical-utility-judge';
import { LlmUtilityJudge } from './llm-utility-judge';
import { weightFailureSchema } from './schemas/weight-failure';
import { ScriptedUtilityJudge } from './testing';
import { weightFailuresFile, weightsWorkList } from './weights-work-list';

const makeProbe = (n: number): Probe => ({
  probe_id: `pb_${String(n).padStart(4, '0')}`,
  source_case_id: 'case_a',
  scene: 'talk',
  question: `Question ${n}?`,
  answer: `Answer ${n}`,
  evidence: [{ locator: 'page 1', text: `evidence ${n}` }],
  level: (n % 3) + 1,
  modality: 'text',
  theme: n % 2 ? 'result' : 'definition',
  metadata: {},
});

let dataDir: string;
let cleanup: () => Promise<void>;
let layout: RunLayout;
beforeEach(async () => {
  ({ dir: dataDir, cleanup } = await makeTempDir('xsb-weights-'));
  layout = new RunLayout(dataDir);
});
afterEach(() => cleanup());

async function writeBank(count: number): Promise<Probe[]> {
  const bank = Array.from({ length: count }, (_, i) => makeProbe(i + 1));
  await writeJsonlAtomic(layout.probesFile('case_a'), probeSchema, bank);
  return bank;
}

describe('weightsWorkList', () => {
  it('lists exactly the calls the run makes, reuses finished weights, and decides a missing bank by a rule', async () => {
    await writeBank(26);
    const judge = new ScriptedUtilityJudge(() => 0.6);
    const options = { judge, k: 2, batchSize: 10 };
    const pair = [{ caseLabel: 'case_a', audience: 'learners' }];
    const [unit] = await weightsWorkList(layout, pair, options);
    // 3 batches × k = 2, in the order the run sends them
    const requests = unit!.decision.kind === 'call' ? unit!.decision.requests : [];
    const ids = (from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, n) => makeProbe(from + n).probe_id).join(' ');
    expect(requests.map((request) => request.messages[0]!.content)).toEqual([
      `learners 0: ${ids(1, 10)}`,
      `learners 1: ${ids(1, 10)}`,
      `learners 0: ${ids(11, 20)}`,
      `learners 1: ${ids(11, 20)}`,
      `learners 0: ${ids(21, 26)}`,
      `learners 1: ${ids(21, 26)}`,
    ]);
    const events: StageEvent[] = [];
    await ensureAudienceWeights(layout, 'case_a', 'learners', { ...options, onEvent: (e) => events.push(e) });
    expect(judge.calls).toHaveLength(requests.length);
    expect(events.map((e) => e.type)).toEqual(['stage-started', 'unit-done', 'stage-finished']);
    const [finished] = await weightsWorkList(layout, pair, options);
    expect(finished!.decision).toEqual({ kind: 'reuse', artifact: layout.weightsFile('case_a', 'learners') });
    expect(finished!.reuseKey).toBe(unit!.reuseKey);
    const [forced] = await weightsWorkList(layout, pair, { ...options, force: true });
    expect(forced!.decision.kind).toBe('call');
    const [offline] = await weightsWorkList(layout, pair, { judge: new LexicalUtilityJudge() });
    expect(offline!.decision).toEqual({ kind: 'rule', rule: 'lexical utility' });
    const [noBank] = await weightsWorkList(layout, [{ caseLabel: 'case_b', audience: 'learners' }], options);
    expect(noBank!.decision).toEqual({ kind: 'rule', rule: 'unreadable probe bank: the pair fails' });
  });
});

describe('ensureAudienceWeights', () => {
  it('batches, samples k times, snaps, averages and flags variance as computed by hand', async () => {
    await writeBank(26);
    // pb_0001: raw 0.2, 0.5, 0.9 → snapped 0.3, 0.6, 1.0 → mean 0.6333, population std 0.2867 (> 0.25).
    // pb_0002: raw 0.61, 0.6, 0.55 → 0.6 each → mean 0.6, std 0. Others: 0.3 each sample.
    const raw: Record<string, number[]> = { pb_0001: [0.2, 0.5, 0.9], pb_0002: [0.61, 0.6, 0.55] };
    const judge = new ScriptedUtilityJudge((id, sample) => raw[id]?.[sample] ?? 0.3);
    const result = await ensureAudienceWeights(layout, 'case_a', 'specialists', { judge });
    expect(result).toMatchObject({ status: 'complete', rows: 26, failures: 0, highVariance: 1 });
    // 26 probes in batches of 12 → 3 batches, each judged k = 3 times.
    expect(judge.calls).toHaveLength(9);
    expect(judge.calls.map((call) => call.probeIds.length).sort()).toEqual(
      [12, 12, 12, 12, 12, 12, 2, 2, 2].sort(),
    );
    const rows = await readJsonlAll(layout.weightsFile('case_a', 'specialists'), audienceWeightSchema);
    expect(rows.map((row) => row.probe_id)).toEqual(
      Array.from({ length: 26 }, (_, i) => makeProbe(i + 1).probe_id),
    );
    expect(rows[0]!.utility_weight).toBeCloseTo((0.3 + 0.6 + 1) / 3, 12);
    expect(rows[0]!.metadata).toMatchObject({
      raw_values: [0.2, 0.5, 0.9],
      snapped_values: [0.3, 0.6, 1],
      rationales: ['scripted 0.2', 'scripted 0.5', 'scripted 0.9'],
      judge: 'scripted',
      k: 3,
      high_variance: true,
      std_kind: 'population',
    });
    expect(rows[0]!.metadata.std as number).toBeCloseTo(
      Math.sqrt(((0.3 - 1.9 / 3) ** 2 + (0.6 - 1.9 / 3) ** 2 + (1 - 1.9 / 3) ** 2) / 3),
      12,
    );
    expect(rows[1]).toMatchObject({ utility_weight: 0.6, metadata: { std: 0, high_variance: false } });
    expect(rows[2]!.utility_weight).toBeCloseTo(0.3, 12);
  });

  it('records probes without all k judgments as failures, never as weight 0, and retries them next run', async () => {
    await writeBank(3);
    const judge = new ScriptedUtilityJudge((id, sample) =>
      id === 'pb_0002' && sample === 1 ? undefined : 0.6,
    );
    const result = await ensureAudienceWeights(layout, 'case_a', 'learners', { judge, batchSize: 2 });
    expect(result).toMatchObject({ status: 'failed', rows: 2, failures: 1 });
    // No partial weights file: consumers that find one must be able to trust it covers every probe.
    expect(existsSync(layout.weightsFile('case_a', 'learners'))).toBe(false);
    const failures = await readJsonlAll(
      weightFailuresFile(layout, 'case_a', 'learners'),
      weightFailureSchema,
    );
    expect(failures).toEqual([
      {
        probe_id: 'pb_0002',
        audience: 'learners',
        judge: 'scripted',
        failed_samples: [1],
        reason: 'sample 1: scripted miss',
      },
    ]);
    const healed = await ensureAudienceWeights(layout, 'case_a', 'learners', {
      judge: new ScriptedUtilityJudge(() => 0.6),
    });
    expect(healed).toMatchObject({ status: 'complete', rows: 3 });
    await expect(stat(weightFailuresFile(layout, 'case_a', 'learners'))).rejects.toThrow();
  });

  it('skips a finished file, and redoes it when the bank, judge or k changes', async () => {
    const bank = await writeBank(5);
    const options = { judge: new LexicalUtilityJudge() };
    expect((await ensureAudienceWeights(layout, 'case_a', 'decision_makers', options)).status).toBe(
      'complete',
    );
    const file = layout.weightsFile('case_a', 'decision_makers');
    const before = { text: await readFile(file, 'utf8'), mtime: (await stat(file)).mtimeMs };
    expect((await ensureAudienceWeights(layout, 'case_a', 'decision_makers', options)).status).toBe(
      'skipped',
    );
    expect((await stat(file)).mtimeMs).toBe(before.mtime);
    expect(
      (await ensureAudienceWeights(layout, 'case_a', 'decision_makers', { ...options, k: 2 })).status,
    ).toBe('complete');
    const revised = Object.assign(new LexicalUtilityJudge(), { fingerprint: 'lexical-v2' });
    expect(
      (await ensureAudienceWeights(layout, 'case_a', 'decision_makers', { judge: revised, k: 2 })).status,
    ).toBe('complete');
    await writeJsonlAtomic(layout.probesFile('case_a'), probeSchema, [
      { ...bank[0]!, answer: 'changed' },
      ...bank.slice(1),
    ]);
    expect((await ensureAudienceWeights(layout, 'case_a', 'decision_makers', options)).status).toBe(
      'complete',
    );
    const current = await readFile(file, 'utf8');
    expect(current).not.toBe(before.text);
    const forced = await ensureAudienceWeights(layout, 'case_a', 'decision_makers', {
      ...options,
      force: true,
    });
    expect(forced.status).toBe('complete');
    expect(await readFile(file, 'utf8')).toBe(current);
  });

  it('fails clearly without a probe bank and refuses an unknown audience', async () => {
    const result = await ensureAudienceWeights(layout, 'case_a', 'learners', {
      judge: new LexicalUtilityJudge(),
    });
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/probes_deduped\.jsonl: no probe bank/);
    await expect(
      ensureAudienceWeights(layout, 'case_a', 'aliens', { judge: new LexicalUtilityJudge() }),
    ).rejects.toThrow(/unknown audience "aliens"/);
  });

  it('uses user profiles from a YAML file', async () => {
    await writeBank(2);
    const file = join(dataDir, 'audiences.yaml');
    await writeFile(
      file,
      'audiences:\n  - id: investors\n    description: People who fund the work and care about its return.\n    lexical:\n      levels: [1, 0.6, 0.3]\n',
    );
    const profiles = await loadAudienceProfiles(file);
    expect([...profiles.keys()]).toEqual(['specialists', 'learners', 'decision_makers', 'investors']);
    await ensureAudienceWeights(layout, 'case_a', 'investors', {
      judge: new LexicalUtilityJudge(),
      profiles,
    });
    const rows = await readJsonlAll(layout.weightsFile('case_a', 'investors'), audienceWeightSchema);
    // pb_0001 has level 2 → 0.6; pb_0002 level 3 → 0.3.
    expect(rows.map((row) => row.utility_weight)).toEqual([0.6, 0.3]);
    await writeFile(file, 'audiences:\n  - id: bad id\n    description: x\n');
    await expect(loadAudienceProfiles(file)).rejects.toThrow(/audiences\.yaml: invalid audience profiles/);
  });
});

describe('findWeightsBankMismatch', () => {
  it('accepts weights of the current bank from any judge and names what changed otherwise', async () => {
    const bank = await writeBank(3);
    const judge = new ScriptedUtilityJudge(() => 0.6);
    await ensureAudienceWeights(layout, 'case_a', 'learners', { judge });
    expect(await findWeightsBankMismatch(layout, 'case_a', 'learners')).toBeNull();

    await writeJsonlAtomic(layout.probesFile('case_a'), probeSchema, [
      bank[0]!,
      { ...bank[1]!, answer: 'A changed answer' },
      bank[2]!,
    ]);
    expect(await findWeightsBankMismatch(layout, 'case_a', 'learners')).toBe(
      'probe pb_0002 changed since it was weighted',
    );

    await writeJsonlAtomic(layout.probesFile('case_a'), probeSchema, [...bank, makeProbe(4)]);
    expect(await findWeightsBankMismatch(layout, 'case_a', 'learners')).toBe(
      'it weights 3 probes but the bank has 4',
    );

    await writeJsonlAtomic(layout.probesFile('case_a'), probeSchema, [bank[1]!, bank[0]!, bank[2]!]);
    expect(await findWeightsBankMismatch(layout, 'case_a', 'learners')).toBe(
      'line 1 weights pb_0001 where the bank has pb_0002',
    );
  });
});

describe('LlmUtilityJudge through the fake provider', () => {
  let server: FakeLlmServer;
  beforeEach(async () => {
    server = await startFakeLlmServer();
  });
  afterEach(() => server.close());

  it('retries once for missing ids, ignores unknown ids, and records what is still missing', async () => {
    await writeBank(3);
    // Sample 0: pb_0003 missing, retry supplies it. Sample 1: pb_0002 missing twice → failure.
    // Sample 2: complete, with an extra unknown id.
    const script: Record<string, string[]> = {
      '0': [
        'Here: [{"probe_id":"pb_0001","utility":1,"rationale":"core"},{"probe_id":"pb_0002","utility":0.5,"rationale":"ok"}]',
        '```json\n[{"probe_id":"pb_0003","utility":0.1,"rationale":"minor"}]\n```',
      ],
      '1': [
        '[{"probe_id":"pb_0001","utility":0.6},{"probe_id":"pb_0003","utility":0.2},{"probe_id":"pb_0099","utility":1}]',
        '[{"probe_id":"pb_0099","utility":1}]',
      ],
      '2': [
        '[{"probe_id":"pb_0001","utility":0.9},{"probe_id":"pb_0002","utility":0.3},{"probe_id":"pb_0003","utility":0},{"probe_id":"pb_0042","utility":1}]',
      ],
    };
    // The turn is read from the conversation itself (a corrective follow-up carries the previous
    // answer), so a transport-level retry of the same request gets the same answer.
    server.setHandler((request) => {
      const turn = request.text.includes('did not give a valid utility') ? 1 : 0;
      return { text: script[String(request.body.seed)]![turn]! };
    });
    const judge = new LlmUtilityJudge(createLlmClient('openai:gpt-fake', { env: fakeProviderEnv(server) }));
    const events: StageEvent[] = [];
    const onEvent = (event: StageEvent) => events.push(event);
    const result = await ensureAudienceWeights(layout, 'case_a', 'specialists', { judge, onEvent });
    // 3 samples + one corrective follow-up for each of samples 0 and 1 (identical bodies = transport retries).
    expect(new Set(server.requests.map((request) => JSON.stringify(request.body))).size).toBe(5);
    // Each of those calls is a call-made event carrying the usage the provider reported.
    expect(callsMade(events, { stage: 'weights', id: 'case_a/specialists' })).toHaveLength(5);
    const followUps = server.requests.filter((r) => r.text.includes('did not give a valid utility'));
    expect(followUps.some((r) => r.text.includes('for these probe ids: pb_0003.'))).toBe(true);
    expect(followUps.some((r) => r.text.includes('for these probe ids: pb_0002.'))).toBe(true);
    expect(result).toMatchObject({ status: 'failed', rows: 2, failures: 1 });
    expect(existsSync(layout.weightsFile('case_a', 'specialists'))).toBe(false);
    const failures = await readJsonlAll(
      weightFailuresFile(layout, 'case_a', 'specialists'),
      weightFailureSchema,
    );
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ probe_id: 'pb_0002', failed_samples: [1] });
    expect(failures[0]!.reason).toMatch(/unknown ids: pb_0099/);

    // The next run (sample 1 now rates pb_0002 at 0.45, a tie between 0.3 and 0.6) heals the pair.
    script['1']![0] =
      '[{"probe_id":"pb_0001","utility":0.6},{"probe_id":"pb_0002","utility":0.45},{"probe_id":"pb_0003","utility":0.2}]';
    const healed = await ensureAudienceWeights(layout, 'case_a', 'specialists', { judge });
    expect(healed).toMatchObject({ status: 'complete', rows: 3, failures: 0 });
    const rows = await readJsonlAll(layout.weightsFile('case_a', 'specialists'), audienceWeightSchema);
    // pb_0001: 1, 0.6, 0.9 → 1, 0.6, 1 → 0.8667; pb_0002: 0.5, 0.45, 0.3 → 0.6, 0.6, 0.3 → 0.5;
    // pb_0003: 0.1, 0.2, 0 → 0, 0.3, 0 → 0.1.
    expect(rows.map((row) => [row.probe_id, Number(row.utility_weight.toFixed(4))])).toEqual([
      ['pb_0001', 0.8667],
      ['pb_0002', 0.5],
      ['pb_0003', 0.1],
    ]);
    expect(rows[0]!.metadata.judge).toBe('openai:gpt-fake');
    expect(existsSync(weightFailuresFile(layout, 'case_a', 'specialists'))).toBe(false);
  });
});

describe('ensureAudienceWeights with a refused key', () => {
  it('stops with an exit-2 error instead of recording every probe as failed', async () => {
    const server = await startFakeLlmServer({ handler: () => ({ fault: { kind: 'status', status: 401 } }) });
    try {
      await writeBank(30);
      const judge = new LlmUtilityJudge(createLlmClient('openai:gpt-fake', { env: fakeProviderEnv(server) }));
      const error = await ensureAudienceWeights(layout, 'case_a', 'learners', {
        judge,
        concurrency: 1,
      }).catch((caught: unknown) => caught);
      expect(exitCodeFor(error)).toBe(2);
      // Two calls were in flight when the first refusal came back; nothing started after it.
      expect(server.requests.length).toBeLessThanOrEqual(2);
    } finally {
      await server.close();
    }
  });
});

describe('weights of another k', () => {
  it('live in weights@k<k>/ beside the default ones and never replace them', async () => {
    await writeBank(5);
    const judge = new ScriptedUtilityJudge((_, sample) => (sample === 0 ? 1 : 0.3));
    expect(weightsFileForK(layout, 'case_a', 'learners', 3)).toBe(layout.weightsFile('case_a', 'learners'));
    const oneSample = weightsFileForK(layout, 'case_a', 'learners', 1);
    expect(oneSample).toBe(join(dataDir, 'probes', 'case_a', 'weights@k1', 'learners.jsonl'));
    const three = await ensureAudienceWeights(layout, 'case_a', 'learners', { judge });
    const one = await ensureAudienceWeights(layout, 'case_a', 'learners', { judge, k: 1, file: oneSample });
    expect([three.status, one.status]).toEqual(['complete', 'complete']);
    expect(one.weightsFile).toBe(oneSample);
    // k = 3: (1 + 0.3 + 0.3) / 3; k = 1: sample 0 alone.
    const weightsOf = async (file: string) =>
      (await readJsonlAll(file, audienceWeightSchema)).map((row) => Number(row.utility_weight.toFixed(4)));
    expect(await weightsOf(three.weightsFile)).toEqual([0.5333, 0.5333, 0.5333, 0.5333, 0.5333]);
    expect(await weightsOf(oneSample)).toEqual([1, 1, 1, 1, 1]);
    // Each file is finished on its own terms: a second call skips both.
    const again = await ensureAudienceWeights(layout, 'case_a', 'learners', { judge, k: 1, file: oneSample });
    expect(again.status).toBe('skipped');
    expect(await findWeightsBankMismatch(layout, 'case_a', 'learners', oneSample)).toBeNull();
    expect(weightFailuresFile(layout, 'case_a', 'learners', oneSample)).toBe(
      join(dataDir, 'probes', 'case_a', 'weights@k1', 'learners.failures.jsonl'),
    );
    expect(() => weightsFileForK(layout, 'case_a', 'learners', 0)).toThrow(/positive integer/);
  });
});

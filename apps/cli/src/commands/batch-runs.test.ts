import { copyFile, cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readJsonlAll } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { buildTestPptx } from '@xsb/decks/testing';
import { runDemo } from '@xsb/eval';
import { usageLedgerEntrySchema } from '@xsb/llm';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { BATCH_INSTANCE_CONCURRENCY } from '@xsb/rubric';
import { writeLayoutFixtureDecks } from '@xsb/rubric/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runXsb } from '../testing-cli';
import { FAST_BATCH_CONFIG, repoFixture } from '../testing-fixtures';
import { scriptedPipelineJudge } from '../testing-judges';
import { spawnXsb } from '../testing-processes';
import { readTree, treeDifferences, withoutCreatedAt } from '../testing-trees';

let server: FakeLlmServer;
let root: string;
let cleanup: () => Promise<void>;

/** Short batch timings for tests (config `batch`): collect for 150 ms of quiet, poll every 20–100 ms. */

beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-batch-cli-'));
  server = await startFakeLlmServer({ handler: scriptedPipelineJudge });
  // Stages 1–4 offline; stage 5 is what is judged online or through batches below.
  await runDemo({ outDir: join(root, 'demo') });
}, 180_000);
afterAll(async () => {
  await server.close();
  await cleanup();
});

/** A folder with its own copy of the demo data, cache and config: runs in it share nothing else. */
async function workspace(name: string): Promise<string> {
  const dir = join(root, name);
  await cp(join(root, 'demo'), join(dir, 'demo'), { recursive: true });
  await writeFile(join(dir, 'xsb.config.json'), FAST_BATCH_CONFIG);
  return dir;
}

const env = () => fakeProviderEnv(server) as Record<string, string>;

/** Artifacts of a data folder for comparison; the ledger and batch state record how a run went. */
const evaluationTree = (dataDir: string) =>
  readTree(dataDir, (path) => path.endsWith('usage_ledger.jsonl') || path.includes('/batches/'));
const sameUpToTime = (path: string, bytes: Buffer) =>
  path.endsWith('run_manifest.json') ? withoutCreatedAt(bytes) : bytes;

describe('xsb eval --batch', () => {
  it('writes the same artifacts as the online run with the same answers, every call answered in batches', async () => {
    const args = [
      'eval',
      '--data',
      'demo/data',
      '--run',
      'demo',
      '--judge',
      'openai:gpt-4.1',
      '--system',
      'xsb-baseline',
      '--case',
      'energy_heat_pump_pilot,ocean_coral_bleaching',
    ];
    const online = await workspace('eval-online');
    const requestsBefore = server.requests.length;
    const first = await runXsb(args, { cwd: online, env: env() });
    expect(first.code, first.stderr).toBe(0);
    const onlineRequests = server.requests.slice(requestsBefore);
    expect(onlineRequests.length).toBeGreaterThan(10);
    expect(onlineRequests.every((request) => request.batchId === undefined)).toBe(true);

    const batched = await workspace('eval-batch');
    const batchesBefore = server.batches.length;
    const second = await runXsb([...args, '--batch'], { cwd: batched, env: env() });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('12/12 jobs done with judge openai:gpt-4.1');
    expect(second.stderr).toMatch(/batch batch_\w+: submitted \d+ requests?/);
    const batchRequests = server.requests.slice(requestsBefore + onlineRequests.length);
    // Every call went into a batch (none online), each distinct prompt once, and the same prompts as online.
    expect(batchRequests.every((request) => request.batchId !== undefined)).toBe(true);
    expect(new Set(batchRequests.map((r) => r.customId)).size).toBe(batchRequests.length);
    expect(batchRequests.map((r) => r.text).sort()).toEqual(
      [...new Set(onlineRequests.map((r) => r.text))].sort(),
    );
    // Steps that wait for each other (answerability + claim extraction, then verification) batch together:
    // far fewer batches than jobs.
    const made = server.batches.length - batchesBefore;
    expect(made).toBeGreaterThanOrEqual(2);
    expect(made).toBeLessThan(12);
    const ledger = await readJsonlAll(
      join(batched, 'demo/data/runs/demo/usage_ledger.jsonl'),
      usageLedgerEntrySchema,
    );
    const judged = ledger.filter((line) => line.judge === 'openai:gpt-4.1');
    const paid = judged.filter((line) => !line.cacheHit);
    expect(paid.length).toBe(batchRequests.length);
    expect(paid.every((line) => line.batch === true && line.batchId !== undefined && line.ok)).toBe(true);
    // gpt-4.1 at $2 in / $8 out / $0.50 cache read per million tokens online; a batch line is billed at half.
    const online$ = (line: { inputTokens: number; outputTokens: number; cacheReadTokens: number }) =>
      (line.inputTokens * 2 + line.outputTokens * 8 + line.cacheReadTokens * 0.5) / 1e6;
    for (const line of paid) expect(line.costUsd).toBeCloseTo(online$(line) / 2, 12);
    expect(judged.filter((line) => line.cacheHit).every((line) => line.costUsd === 0)).toBe(true);
    const onlineLedger = await readJsonlAll(
      join(online, 'demo/data/runs/demo/usage_ledger.jsonl'),
      usageLedgerEntrySchema,
    );
    const onlinePaid = onlineLedger.filter((line) => line.judge === 'openai:gpt-4.1' && !line.cacheHit);
    expect(onlinePaid.every((line) => line.batch !== true)).toBe(true);
    for (const line of onlinePaid) expect(line.costUsd).toBeCloseTo(online$(line), 12);

    const a = await evaluationTree(join(online, 'demo/data'));
    const b = await evaluationTree(join(batched, 'demo/data'));
    // The judged cases' metrics name the model judge (the others keep the demo's lexical ones).
    const judgedMetrics = [...b].filter(
      ([path, bytes]) => path.endsWith('/metrics.json') && bytes.toString('utf8').includes('openai:gpt-4.1'),
    );
    expect(judgedMetrics.length).toBeGreaterThanOrEqual(6);
    expect(treeDifferences(a, b, sameUpToTime)).toEqual([]);
  }, 180_000);

  it('is a usage error (exit 2, nothing judged) with the offline judge, a replay store or a bad fallback', async () => {
    const dir = await workspace('eval-usage');
    const lexical = await runXsb('eval --data demo/data --run demo --batch', { cwd: dir });
    expect(lexical.code).toBe(2);
    expect(lexical.stderr).toMatch(
      /^ERROR: batch mode .* the lexical judge is offline and makes none.*\(drop --batch\)$/m,
    );
    const replay = await runXsb(
      [
        'eval',
        '--data',
        'demo/data',
        '--run',
        'demo',
        '--judge',
        `replay:${repoFixture('replay/demo.jsonl')}`,
        '--batch',
      ],
      { cwd: dir },
    );
    expect(replay.code).toBe(2);
    expect(replay.stderr).toMatch(/answers from its store and calls no provider/);
    const fallback = await runXsb('eval --data demo/data --run demo --batch-fallback online', { cwd: dir });
    expect(fallback.code).toBe(2);
    expect(fallback.stderr).toMatch(/--batch-fallback applies only with --batch/);
    const bad = await runXsb(
      'eval --data demo/data --run demo --judge openai:x --batch --batch-fallback later',
      {
        cwd: dir,
        env: env(),
      },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--batch-fallback must be resubmit or online, got "later"/);
    for (const command of ['probes', 'weights', 'demo --out d'])
      expect((await runXsb(`${command} --batch`, { cwd: dir })).stderr).toMatch(/lexical judge is offline/);
  });
});

const EVAL_ARGS = (data: string) => [
  'eval',
  '--data',
  data,
  '--run',
  'demo',
  '--judge',
  'openai:gpt-4.1',
  '--system',
  'xsb-baseline',
  '--case',
  'energy_heat_pump_pilot,ocean_coral_bleaching',
  '--batch',
];

describe('xsb eval --batch when batches go wrong', () => {
  // Each test compares with the online run of the first test of this file (same answers, same prompts).
  const onlineTree = () => evaluationTree(join(root, 'eval-online', 'demo/data'));
  const batchCustomIds = (from: number) => server.batches.slice(from).flatMap((batch) => batch.customIds);
  /** The data tree of `dir` equals the online run's (the ledger, batch state and `created_at` aside). */
  const expectOnlineArtifacts = async (dir: string): Promise<void> => {
    expect(
      treeDifferences(await onlineTree(), await evaluationTree(join(dir, 'demo/data')), sameUpToTime),
    ).toEqual([]);
  };

  it('resubmits what an expired batch (partial results) and canceled entries left, and loses nothing', async () => {
    const dir = await workspace('eval-expired');
    const before = server.batches.length;
    server.setBatchPlan((batch) =>
      batch.index === before
        ? { outcome: 'expired', answered: 3 }
        : batch.index === before + 1
          ? { entryOutcomes: { [batch.customIds[0] ?? '']: 'canceled' } }
          : {},
    );
    try {
      const result = await runXsb(EVAL_ARGS('demo/data'), { cwd: dir, env: env() });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('12/12 jobs done');
    } finally {
      server.setBatchPlan(() => ({}));
    }
    const first = server.batches[before];
    const second = server.batches[before + 1];
    // The expired batch's unanswered entries (all but 3) went into the next batch, and its canceled
    // entry into one after it.
    expect(second?.customIds).toEqual(expect.arrayContaining(first?.customIds.slice(3) ?? ['?']));
    expect(batchCustomIds(before + 2)).toContain(second?.customIds[0]);
    expect(server.requests.slice(-1)[0]?.batchId).toBeDefined();
    await expectOnlineArtifacts(dir);
  }, 180_000);

  it('with --batch-fallback online sends what the expired batch left online', async () => {
    const dir = await workspace('eval-fallback');
    const before = server.batches.length;
    const requestsBefore = server.requests.length;
    server.setBatchPlan((batch) => (batch.index === before ? { outcome: 'expired', answered: 3 } : {}));
    try {
      const result = await runXsb([...EVAL_ARGS('demo/data'), '--batch-fallback', 'online'], {
        cwd: dir,
        env: env(),
      });
      expect(result.code, result.stderr).toBe(0);
    } finally {
      server.setBatchPlan(() => ({}));
    }
    const expiredIds = server.batches[before]?.customIds.slice(3) ?? [];
    expect(expiredIds.length).toBeGreaterThan(0);
    // None of them was put in a batch again; each went online once.
    expect(batchCustomIds(before + 1)).not.toEqual(expect.arrayContaining([expiredIds[0]]));
    const online = server.requests.slice(requestsBefore).filter((request) => request.batchId === undefined);
    expect(online.length).toBe(expiredIds.length);
    const ledger = await readJsonlAll(
      join(dir, 'demo/data/runs/demo/usage_ledger.jsonl'),
      usageLedgerEntrySchema,
    );
    const paid = ledger.filter((line) => line.judge === 'openai:gpt-4.1' && !line.cacheHit);
    expect(paid.filter((line) => line.batch !== true)).toHaveLength(expiredIds.length);
    await expectOnlineArtifacts(dir);
  }, 180_000);

  it('rides out provider errors on upload and create (retried, a lost create found again): nothing paid twice', async () => {
    const dir = await workspace('eval-upload-errors');
    const before = server.batches.length;
    server.queueBatchFault('upload', { status: 500, message: 'upload failed' }, 2);
    server.queueBatchFault('create', { kind: 'lost' });
    const result = await runXsb(EVAL_ARGS('demo/data'), { cwd: dir, env: env() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('12/12 jobs done');
    expect(server.batchFaultsLeft()).toBe(0); // both failed uploads and the lost create were met
    const ids = batchCustomIds(before);
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length); // the lost create's batch was found, not made again
    await expectOnlineArtifacts(dir);
  }, 180_000);

  it('a batch submission the provider refuses (400) goes online with --batch-fallback online, and loses nothing', async () => {
    const dir = await workspace('eval-refused');
    const requestsBefore = server.requests.length;
    const batchesBefore = server.batches.length;
    server.queueBatchFault('create', { status: 400, message: 'batches are not enabled for this key' }, 1_000);
    try {
      const result = await runXsb([...EVAL_ARGS('demo/data'), '--batch-fallback', 'online'], {
        cwd: dir,
        env: env(),
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('12/12 jobs done');
    } finally {
      server.clearBatchFaults();
    }
    expect(server.batches.length).toBe(batchesBefore); // no batch was accepted
    const sent = server.requests.slice(requestsBefore);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((request) => request.batchId === undefined)).toBe(true);
    await expectOnlineArtifacts(dir);
  }, 180_000);

  it('a killed xsb eval --batch run again resumes polling its batch instead of submitting it again', async () => {
    const dir = await workspace('eval-killed');
    const before = server.batches.length;
    server.setBatchPlan(() => ({ pollsBeforeEnd: Number.POSITIVE_INFINITY }));
    const args = ['--config', join(dir, 'xsb.config.json'), ...EVAL_ARGS(join(dir, 'demo/data'))];
    try {
      const first = spawnXsb(args, { home: dir, env: env() });
      await first.waitFor(/batch batch_\w+: submitted \d+ request/, 120_000);
      first.child.kill('SIGKILL');
      expect(await first.exited).toBeNull();
      expect(server.batches.length).toBe(before + 1);
      server.setBatchPlan(() => ({}));
      server.releaseBatches();
      const second = spawnXsb(args, { home: dir, env: env() });
      expect(await second.exited, second.output()).toBe(0);
      expect(second.output()).toMatch(
        /batch batch_\w+: resumed \(\d+ requests? submitted by an earlier process\)/,
      );
    } finally {
      server.setBatchPlan(() => ({}));
      server.releaseBatches();
    }
    // No request was submitted twice: every custom_id is in one batch only.
    const ids = batchCustomIds(before);
    expect(new Set(ids).size).toBe(ids.length);
    await expectOnlineArtifacts(dir);
  }, 240_000);
});

describe('xsb rubric run --batch', () => {
  it('gives the online run’s evaluation files, with every item of the deck in one batch', async () => {
    const layoutData = repoFixture('rubric', 'presentbench-layout', 'data');
    const work = join(root, 'rubric-work');
    await mkdir(join(root, 'rubric-decks'), { recursive: true });
    const { clean } = await writeLayoutFixtureDecks(join(root, 'rubric-decks'));
    // Both runs use the same folder (so paths inside the summary agree) and their own answer cache.
    const runIn = async (extra: string[], cache: string) => {
      const results = join(
        work,
        'results',
        'education/Computer_science_lectures/ch1_bits/generation_task/results',
      );
      await rm(work, { recursive: true, force: true });
      await mkdir(results, { recursive: true });
      await copyFile(clean, join(results, 'slides.pptx'));
      await writeFile(join(work, 'xsb.config.json'), FAST_BATCH_CONFIG);
      return runXsb(
        [
          'rubric',
          'run',
          '--instances',
          layoutData,
          '--results',
          'results',
          '--judge',
          'anthropic:claude-rubric',
          '--json',
          ...extra,
        ],
        { cwd: work, env: { ...env(), XDG_CACHE_HOME: join(root, cache) } },
      );
    };
    const requestsBefore = server.requests.length;
    const online = await runIn([], 'cache-online');
    expect(online.code).toBe(1); // the second case's bad callable is a failed row, as online
    await rename(work, join(root, 'rubric-online'));
    const onlineCalls = server.requests.length - requestsBefore;

    const batchesBefore = server.batches.length;
    const batched = await runIn(['--batch'], 'cache-batch');
    expect(batched.code).toBe(1);
    expect(JSON.parse(batched.stdout).rows).toEqual(JSON.parse(online.stdout).rows.map(timeless));
    // No lone first item per tier: the deck's LLM items form one batch.
    expect(server.batches.length - batchesBefore).toBe(1);
    expect(server.batches.at(-1)?.customIds).toHaveLength(onlineCalls);
    const timelessPath = (path: string) => path.replace(/_\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}/g, '_<time>');
    const rename_ = (tree: Map<string, Buffer>) =>
      new Map(
        [...tree].map(([path, bytes]) => [
          timelessPath(path),
          Buffer.from(timelessPath(bytes.toString('utf8'))),
        ]),
      );
    const skip = (path: string) => path.includes('batches/') || path === 'xsb.config.json';
    const a = rename_(await readTree(join(root, 'rubric-online', 'results'), skip));
    const b = rename_(await readTree(join(work, 'results'), skip));
    expect(
      [...a.keys()].some((path) => path.endsWith('slides.pptx.xsb_rubric_anthropic_claude-rubric.json')),
    ).toBe(true);
    expect(treeDifferences(a, b)).toEqual([]);
  }, 120_000);
});

describe('xsb rubric run --batch on more decks than it judges at once', () => {
  it(`keeps at most BATCH_INSTANCE_CONCURRENCY (${BATCH_INSTANCE_CONCURRENCY}) decks in flight, so no batch holds the items of more`, async () => {
    const DECKS = BATCH_INSTANCE_CONCURRENCY + 4;
    const work = join(root, 'rubric-bound');
    const instances = join(work, 'data');
    await cp(repoFixture('rubric', 'presentbench-layout', 'data'), instances, { recursive: true });
    const lectures = join(instances, 'education', 'Computer_science_lectures');
    await rm(join(lectures, 'ch2_bad_callable'), { recursive: true });
    const markers: string[] = [];
    for (let i = 0; i < DECKS; i++) {
      const id = `ch1_copy_${String(i).padStart(2, '0')}`;
      await cp(join(lectures, 'ch1_bits'), join(lectures, id), { recursive: true });
      const results = join(
        work,
        'results',
        'education',
        'Computer_science_lectures',
        id,
        'generation_task',
        'results',
      );
      await mkdir(results, { recursive: true });
      // A marker per deck makes its items' prompts its own (equal prompts would share one custom_id).
      const marker = `Storage deck marker ${id}`;
      markers.push(marker);
      await writeFile(
        join(results, 'slides.pptx'),
        buildTestPptx({
          slides: [
            {
              fileNumber: 1,
              title: marker,
              bullets: ['A bit is a binary digit', 'Memory cells have addresses'],
            },
            { fileNumber: 2, title: 'Compression', bullets: ['Lossless codes keep every bit'] },
          ],
        }),
      );
    }
    await rm(join(lectures, 'ch1_bits'), { recursive: true });
    await writeFile(join(work, 'xsb.config.json'), FAST_BATCH_CONFIG);
    const batchesBefore = server.batches.length;
    const result = await runXsb(
      [
        'rubric',
        'run',
        '--instances',
        instances,
        '--results',
        'results',
        '--judge',
        'anthropic:claude-rubric',
        '--batch',
        '--json',
      ],
      { cwd: work, env: { ...env(), XDG_CACHE_HOME: join(root, 'cache-bound') } },
    );
    expect(result.stderr).not.toMatch(/ERROR/);
    expect(JSON.parse(result.stdout).rows.map((row: { status: string }) => row.status)).toEqual(
      Array(DECKS).fill('evaluated'),
    );
    const batchIds = new Set(server.batches.slice(batchesBefore).map((batch) => batch.id));
    const decksPerBatch = new Map<string, Set<string>>();
    for (const request of server.requests) {
      if (!request.batchId || !batchIds.has(request.batchId)) continue;
      const deck = markers.find((marker) => request.text.includes(marker));
      expect(deck, `a batch entry names one of the decks: ${request.customId}`).toBeDefined();
      const decks = decksPerBatch.get(request.batchId) ?? new Set<string>();
      decksPerBatch.set(request.batchId, decks.add(deck!));
    }
    const sizes = [...decksPerBatch.values()].map((decks) => decks.size);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(BATCH_INSTANCE_CONCURRENCY);
    expect(new Set([...decksPerBatch.values()].flatMap((decks) => [...decks])).size).toBe(DECKS);
  }, 120_000);
});

/** A summary row's PresentBench file paths carry the second they were written; compare without it. */
function timeless(row: Record<string, unknown>): unknown {
  return expect.objectContaining({
    ...row,
    presentbench_result: row.presentbench_result === null ? null : expect.stringMatching(/\.yaml$/),
    presentbench_score: row.presentbench_score === null ? null : expect.stringMatching(/_score\.yaml$/),
  });
}

describe('xsb rubric eval --batch', () => {
  it('judges one deck through a batch and writes the same evaluation as online', async () => {
    const dir = join(root, 'rubric-eval');
    await mkdir(dir, { recursive: true });
    const { clean } = await writeLayoutFixtureDecks(dir);
    await writeFile(join(dir, 'xsb.config.json'), FAST_BATCH_CONFIG);
    const instance = repoFixture('rubric', 'appendix-cs-overview-ch1', 'instance.yaml');
    const evaluate = (extra: string[], cache: string) =>
      runXsb(
        [
          'rubric',
          'eval',
          '--instance',
          instance,
          '--deck',
          clean,
          '--judge',
          'openai:gpt-rubric',
          '--force',
          '--json',
          ...extra,
        ],
        {
          cwd: dir,
          env: { ...env(), XDG_CACHE_HOME: join(dir, cache) },
        },
      );
    const online = await evaluate([], 'c1');
    const file = JSON.parse(online.stdout).evaluation_file as string;
    const onlineBytes = await readFile(file);
    const batchesBefore = server.batches.length;
    const batched = await evaluate(['--batch'], 'c2');
    expect(batched.code).toBe(online.code);
    expect(server.batches.length - batchesBefore).toBe(1);
    const batchBytes = await readFile(file);
    // Byte for byte but for how the provider split the same input tokens between fresh and prompt-cache
    // reads (its report, not an answer: a batch reads more from the cache than a first online call).
    const split = (bytes: Buffer) => {
      const { usage, ...rest } = JSON.parse(bytes.toString('utf8')) as { usage: Record<string, number> };
      const { input_tokens = 0, cache_read_tokens = 0, ...counts } = usage;
      return { rest, counts, input: input_tokens + cache_read_tokens };
    };
    expect(split(batchBytes)).toEqual(split(onlineBytes));
    expect(split(onlineBytes).counts.calls).toBeGreaterThan(10);
    const lexical = await runXsb(['rubric', 'eval', '--instance', instance, '--deck', clean, '--batch'], {
      cwd: dir,
    });
    expect(lexical.code).toBe(2);
    expect(lexical.stderr).toMatch(/lexical judge is offline/);
  }, 120_000);
});

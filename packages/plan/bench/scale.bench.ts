/**
 * Full-size runs, simulated (`pnpm --filter @xsb/plan bench [-- options]`): a PresentBench-size
 * rubric run (238 instances × 8 systems × 54 items, decks of 20 slides, ~20k tokens of materials)
 * and an X+SlidesBench-size pipeline (113 topics, 8,133 probes, 3 audiences, 2 systems) through the
 * real stage code and the real Anthropic SDK client, against the fake provider in its own process
 * with a scaled latency. Each size runs in a fresh process (peak RSS is its own): the plan first,
 * then the run, then plan vs ledger. Prints one table per part.
 *
 * Options: `--parts estimator,rubric,rubric-batch,rubric-plan,pipeline` (default all; `rubric-plan`
 * plans the full 238 × 8 run without running it; `estimator` is
 * bench/estimator.bench.ts: bytes/4 against the count endpoints and o200k_base), `--fractions 1/8,1/4,1/2,1`,
 * `--latency-ms 150 --jitter-ms 50` (a realistic 1.5 s ± 0.5 s judge answer, scaled by 0.1),
 * `--rubric-concurrency 16` (items in flight), `--deck-concurrency 1` (decks at once, online),
 * `--batch-deck-concurrency 2` (decks of each system at once through the batch API: 16 in flight; 348–388 MB from 1/32 to full size, docs/scale.md), `--dir DIR` (inputs are kept there and reused), `--judge`.
 * The pipeline also prints each stage's peak RSS, heap (used/total) and external memory; run with
 * `NODE_OPTIONS=--expose-gc` to add the live heap after a full GC at each stage's end (those GCs
 * change the later stages' peaks, so the table's figures are measured without it).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StagePeak } from './scale-pipeline';
import { synthesizePresentBench, synthesizeXSlidesSources } from './synthesize';

const FULL = { instances: 238, systems: 8, topics: 113, probes: 8133 };

function flag(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

const parts = flag('parts', 'estimator,rubric,rubric-batch,rubric-plan,pipeline').split(',');
const fractions = flag('fractions', '1/8,1/4,1/2,1')
  .split(',')
  .map((text) => ({
    text,
    value: text
      .split('/')
      .map(Number)
      .reduce((a, b) => a / b),
  }));
const latencyMs = Number(flag('latency-ms', '150'));
const jitterMs = Number(flag('jitter-ms', '50'));
const rubricConcurrency = Number(flag('rubric-concurrency', '16'));
const deckConcurrency = Number(flag('deck-concurrency', '1'));
const batchDeckConcurrency = Number(flag('batch-deck-concurrency', '2'));
const judge = flag('judge', 'anthropic:claude-sonnet-4-5');
const root = flag('dir', join(tmpdir(), 'xsb-scale-bench'));

interface Server {
  url: string;
  stop: () => Promise<void>;
}

async function serve(extra: Record<string, unknown>): Promise<Server> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/serve-stage-judge.ts', JSON.stringify({ latencyMs, jitterMs, ...extra })],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const [first] = (await once(child.stdout, 'data')) as [Buffer];
  return {
    url: first.toString().trim(),
    stop: async () => {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

async function runPart(options: Record<string, unknown>): Promise<Record<string, unknown>> {
  const child = spawn(
    process.execPath,
    ['--max-old-space-size=4096', '--import', 'tsx', 'bench/run-scale-part.ts', JSON.stringify(options)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`scale part exited with ${code}`);
  return JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

/** The first `instances` of the master set (instances and every system's decks), fresh for a run. */
async function rubricSubset(master: string, target: string, instances: number): Promise<void> {
  await rm(target, { recursive: true, force: true });
  const ids: Array<[string, string]> = [];
  for (const category of (await readdir(join(master, 'instances'))).sort())
    for (const id of (await readdir(join(master, 'instances', category))).sort()) ids.push([category, id]);
  ids.sort((a, b) => a[1].localeCompare(b[1]));
  for (const [category, id] of ids.slice(0, instances)) {
    await cp(join(master, 'instances', category, id), join(target, 'instances', category, id), {
      recursive: true,
    });
    for (let s = 1; s <= FULL.systems; s += 1)
      await cp(
        join(master, 'results', `system-${s}`, category, id),
        join(target, 'results', `system-${s}`, category, id),
        {
          recursive: true,
        },
      );
  }
}

const mb = (value: unknown) => `${value} MB`;
const usd = (value: number) => `$${value >= 100 ? value.toFixed(0) : value.toFixed(2)}`;
const results: Array<Record<string, unknown>> = [];

async function rubricPart(batch: boolean): Promise<void> {
  const master = join(root, 'presentbench-master');
  if (!existsSync(join(master, 'done'))) {
    const started = performance.now();
    await rm(master, { recursive: true, force: true });
    await synthesizePresentBench(master, { instances: FULL.instances, systems: FULL.systems });
    await writeFile(join(master, 'done'), '');
    console.log(
      `synthesized ${FULL.instances} instances × ${FULL.systems} decks in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
  }
  console.log(
    `\n## PresentBench-size rubric run${batch ? `, batch API (Anthropic Message Batches, each batch processing 2 s at the fake), ${batchDeckConcurrency} decks at once` : `: latency ${latencyMs} ± ${jitterMs} ms (1.5 s ± 0.5 s × 0.1), ${rubricConcurrency} items at once, ${deckConcurrency} deck(s) at once`}; ${judge}`,
  );
  console.log(
    '| size | instances × systems | calls | wall | ideal | wall/ideal | plan time | peak RSS | prompt tokens | cache reads | cost uncached | cached | batch | plan calls | plan input error |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const fraction of fractions) {
    const instances = Math.max(1, Math.round(FULL.instances * fraction.value));
    const dir = join(root, `rubric${batch ? '-batch' : ''}-${fraction.text.replace('/', 'of')}`);
    await rubricSubset(master, dir, instances);
    const server = await serve(batch ? { batchProcessingMs: 2000 } : {});
    try {
      const result = await runPart({
        part: 'rubric',
        dir,
        url: server.url,
        judge,
        concurrency: rubricConcurrency,
        instancesDir: join(dir, 'instances'),
        resultsDirs: Array.from({ length: FULL.systems }, (_, s) => join(dir, 'results', `system-${s + 1}`)),
        deckConcurrency: batch ? batchDeckConcurrency : deckConcurrency,
        ...(batch ? { batch: { idleMs: 500, pollIntervalMs: 500, maxPollIntervalMs: 2000 } } : {}),
      });
      results.push({ fraction: fraction.text, ...result });
      print(fraction.text, `${instances} × ${FULL.systems}`, result, rubricConcurrency);
    } finally {
      await server.stop();
    }
  }
}

function print(size: string, shape: string, result: Record<string, unknown>, concurrency: number): void {
  const calls = result.providerCalls as number;
  const batched = result.batch === true;
  const ideal = (calls * latencyMs) / concurrency / 1000;
  const wall = (result.runMs as number) / 1000;
  const cost = result.costUsd as Record<string, number>;
  const billed = result.billed as Record<string, number>;
  const reconciliation = result.reconciliation as Array<{
    plannedCalls: number;
    actualCalls: number;
    inputError: number | null;
    exact: boolean;
  }>;
  const planned = reconciliation.reduce((sum, row) => sum + row.plannedCalls, 0);
  const actual = reconciliation.reduce((sum, row) => sum + row.actualCalls, 0);
  const worst = Math.max(
    ...reconciliation.filter((row) => row.exact).map((row) => Math.abs(row.inputError ?? 0)),
  );
  console.log(
    `| ${size} | ${shape} | ${calls.toLocaleString('en-US')}${(result.cacheHits as number) > 0 ? ` (+${result.cacheHits} cached)` : ''}${batched ? ` in ${result.batches} batches` : ''} | ${wall.toFixed(0)} s | ${batched ? '–' : `${ideal.toFixed(0)} s`} | ${batched ? '–' : (wall / ideal).toFixed(2)} | ${((result.planMs as number) / 1000).toFixed(1)} s | ${mb(result.peakRssMb)} | ${(result.promptTokens as number).toLocaleString('en-US')} | ${billed.cacheReadTokens!.toLocaleString('en-US')} | ${usd(cost.uncachedOnline!)} | ${usd(cost.cachedOnline!)} | ${usd(cost.batch!)} | ${planned === actual ? `${planned} = actual` : `${planned} vs ${actual}`} | ${(worst * 100).toFixed(2)} % |`,
  );
}

/** The full-size rubric run, planned only (the plan is what `xsb plan rubric run` prints, summed over the systems). */
async function rubricFullPlan(): Promise<void> {
  const master = join(root, 'presentbench-master');
  if (!existsSync(join(master, 'done')))
    throw new Error('run the rubric part first: it synthesizes the inputs');
  const child = spawn(
    process.execPath,
    [
      '--max-old-space-size=4096',
      '--import',
      'tsx',
      'bench/plan-full-size.ts',
      JSON.stringify({ master, judge, systems: FULL.systems }),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`full-size plan exited with ${code}`);
  const result = JSON.parse(out.trim().split('\n').at(-1)!) as {
    planMs: number;
    peakRssMb: number;
    totals: {
      calls: number;
      input_tokens: number;
      cache_read_tokens: number;
      cache_write_tokens: number;
      output_tokens: number;
      cost_usd: Record<string, number | null>;
    };
  };
  results.push({ part: 'rubric-plan', ...result });
  const t = result.totals;
  console.log(
    `\n## PresentBench-size rubric run (${FULL.instances} × ${FULL.systems}), planned only; ${judge}`,
  );
  console.log(
    '| calls | prompt tokens | planned cache reads | cache writes | output tokens | online (PresentBench: no caching) | online + prompt caching | batch | plan time | plan peak RSS |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  console.log(
    `| ${t.calls.toLocaleString('en-US')} | ${t.input_tokens.toLocaleString('en-US')} | ${t.cache_read_tokens.toLocaleString('en-US')} | ${t.cache_write_tokens.toLocaleString('en-US')} | ${t.output_tokens.toLocaleString('en-US')} | ${usd(t.cost_usd.online ?? 0)} | ${usd(t.cost_usd.online_cached ?? 0)} | ${usd(t.cost_usd.batch ?? 0)} | ${(result.planMs / 1000).toFixed(0)} s | ${mb(result.peakRssMb)} |`,
  );
}

/** One stage per entry: peak RSS, heap used of heap total, external (array buffers), live heap after a GC. */
function stageMemory(peaks: Record<string, StagePeak>): string {
  return Object.entries(peaks)
    .map(
      ([stage, peak]) =>
        `${stage}: RSS ${peak.rssMb}, heap ${peak.heapUsedMb}/${peak.heapTotalMb}, external ${peak.externalMb} (${peak.arrayBuffersMb})${peak.liveHeapMb === null ? '' : `, live ${peak.liveHeapMb}`}`,
    )
    .join('; ');
}

async function pipelinePart(): Promise<void> {
  console.log(
    `\n## X+SlidesBench-size pipeline (probes, weights, decks, eval): ${judge}, latency ${latencyMs} ± ${jitterMs} ms, the stages' default concurrency (4)`,
  );
  console.log(
    '| size | topics (probes) | calls | wall | ideal | wall/ideal | plan time | peak RSS | prompt tokens | cache reads | cost uncached | cached | batch | plan calls | plan input error |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const fraction of fractions) {
    const topics = Math.max(1, Math.round(FULL.topics * fraction.value));
    const dir = join(root, `pipeline-${fraction.text.replace('/', 'of')}`);
    await rm(dir, { recursive: true, force: true });
    const dataDir = join(dir, 'data');
    const cases = await synthesizeXSlidesSources(dataDir, { topics, words: 5000 });
    // 8,133 probes over 113 topics: 72 each, 71 for the first three.
    const short = FULL.topics * 72 - FULL.probes;
    const probesPerCase = Object.fromEntries(cases.map((caseId, i) => [caseId, i < short ? 71 : 72]));
    const probes = Object.values(probesPerCase).reduce((a, b) => a + b, 0);
    await mkdir(dir, { recursive: true });
    const server = await serve({ probesPerCase });
    try {
      const result = await runPart({
        part: 'pipeline',
        dir,
        url: server.url,
        judge,
        concurrency: 8,
        dataDir,
      });
      results.push({ fraction: fraction.text, topics, probes, ...result });
      print(fraction.text, `${topics} (${probes})`, result, 4);
      console.log(`   stage wall times: ${JSON.stringify(result.stages)}`);
      console.log(
        `   memory by stage (peak MB): ${stageMemory(result.stagePeaks as Record<string, StagePeak>)}`,
      );
    } finally {
      await server.stop();
    }
  }
}

await mkdir(root, { recursive: true });
console.log(`scale runs under ${root} (started ${new Date().toISOString()})`);
if (parts.includes('estimator')) {
  console.log('\n## The estimator against the count endpoints and a real tokenizer');
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/estimator.bench.ts'], {
    stdio: 'inherit',
  });
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`estimator bench exited with ${code}`);
}
if (parts.includes('rubric')) await rubricPart(false);
if (parts.includes('rubric-batch')) await rubricPart(true);
if (parts.includes('rubric-plan')) await rubricFullPlan();
if (parts.includes('pipeline')) await pipelinePart();
await writeFile(join(root, `scale-results-${Date.now()}.json`), JSON.stringify(results, null, 2));

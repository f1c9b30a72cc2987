// The X+SlidesBench-size pipeline through the real stage code, as the CLI runs it (cases, pairs and
// jobs one after another, each stage's default concurrency): stage 1 (extraction), 2 (probes through
// the model, optional), 3 (weights), 4 (the built-in generator's decks, offline planner: no judge
// calls), 5–6 (evaluation). Each judged stage is planned right before it runs, from the files
// the earlier stages wrote, so its plan rows are the planner's real test at scale.
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { RunLayout } from '@xsb/core';
import { generateDecksFromRunSheet, RUN_SHEET_COLUMNS, readRunSheet, writeCsvAtomic } from '@xsb/decks';
import { demoSheetRows, runEvaluation } from '@xsb/eval';
import { type CreateLlmClientOptions, createJudge, offlineJudge } from '@xsb/llm';
import { createProbeGenerator, generateCaseProbes } from '@xsb/probes';
import { discoverSourceCases, prepareSourceContext } from '@xsb/sources';
import { BUILT_IN_AUDIENCES, createUtilityJudge, ensureAudienceWeights } from '@xsb/weights';
import type { CostPlanBuilder } from '../src/cost-plan-builder';
import { planEval } from '../src/plan-eval';
import { planProbes } from '../src/plan-probes';
import { planWeights } from '../src/plan-weights';

export const SCALE_RUN = 'scale';

/**
 * The highest RSS, V8 heap (total reserved and used) and off-heap memory (external, of which array
 * buffers) sampled while one stage ran, in MB; `liveHeapMb`: the heap left after a full GC at the
 * end (only when node runs with `--expose-gc`, else null).
 */
export interface StagePeak {
  rssMb: number;
  heapTotalMb: number;
  heapUsedMb: number;
  externalMb: number;
  arrayBuffersMb: number;
  liveHeapMb: number | null;
}

const toMb = (bytes: number) => Math.round(bytes / 1048576);

/** Runs `work`, sampling memory every 100 ms (and at both ends). */
async function sampledPeak(work: () => Promise<unknown>): Promise<StagePeak> {
  const peak = { rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 };
  const sample = () => {
    const usage = process.memoryUsage();
    for (const key of Object.keys(peak) as Array<keyof typeof peak>)
      peak[key] = Math.max(peak[key], usage[key]);
  };
  sample();
  const sampler = setInterval(sample, 100);
  try {
    await work();
  } finally {
    clearInterval(sampler);
    sample();
  }
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  return {
    rssMb: toMb(peak.rss),
    heapTotalMb: toMb(peak.heapTotal),
    heapUsedMb: toMb(peak.heapUsed),
    externalMb: toMb(peak.external),
    arrayBuffersMb: toMb(peak.arrayBuffers),
    liveHeapMb: gc ? toMb(process.memoryUsage().heapUsed) : null,
  };
}

export async function runPipeline(
  builder: CostPlanBuilder,
  options: {
    dataDir: string;
    judge: string;
    clientOptions: CreateLlmClientOptions;
    withProbes: boolean;
  },
): Promise<{
  planMs: number;
  runMs: number;
  stages: Record<string, number>;
  stagePeaks: Record<string, StagePeak>;
  layout: RunLayout;
}> {
  const layout = new RunLayout(options.dataDir);
  const clientOptions = { ...options.clientOptions, ledgerFile: layout.usageLedgerFile(SCALE_RUN) };
  const stages: Record<string, number> = {};
  const stagePeaks: Record<string, StagePeak> = {};
  let planMs = 0;
  const timed = async (stage: string, work: () => Promise<unknown>) => {
    const started = performance.now();
    stagePeaks[stage] = await sampledPeak(work);
    stages[stage] = Math.round(performance.now() - started);
  };
  const planned = async (stage: string, work: () => Promise<unknown>) => {
    const started = performance.now();
    stagePeaks[`plan ${stage}`] = await sampledPeak(work);
    planMs += performance.now() - started;
  };
  const { cases } = await discoverSourceCases(options.dataDir);
  await timed('1 sources', async () => {
    for (const sourceCase of cases) await prepareSourceContext(layout, sourceCase);
  });
  if (options.withProbes) {
    await planned('probes', () => planProbes(builder, { layout, cases }));
    const generator = createProbeGenerator(createJudge(options.judge, clientOptions));
    // As `xsb probes` runs them: case after case, the stage's default 4 generations in flight.
    await timed('2 probes', async () => {
      for (const sourceCase of cases) await generateCaseProbes(layout, sourceCase, { generator });
    });
  }
  const pairs = cases.flatMap((sourceCase) =>
    sourceCase.metadata.valid_audiences.map((audience) => ({ caseLabel: sourceCase.caseId, audience })),
  );
  await planned('weights', () => planWeights(builder, { layout, pairs }));
  const utilityJudge = createUtilityJudge(createJudge(options.judge, clientOptions));
  // As `xsb weights` runs them: pair after pair, the stage's default 4 calls in flight.
  await timed('3 weights', async () => {
    for (const { caseLabel, audience } of pairs)
      await ensureAudienceWeights(layout, caseLabel, audience, { judge: utilityJudge });
  });
  await timed('4 decks', async () => {
    const sheetFile = join(layout.runDir(SCALE_RUN), 'run_sheet.csv');
    // The run sheet `xsb demo` writes: one agnostic deck per case, one conditioned deck per audience.
    const rows = demoSheetRows(cases, sheetFile);
    await mkdir(dirname(sheetFile), { recursive: true });
    await writeCsvAtomic(sheetFile, RUN_SHEET_COLUMNS, rows);
    await generateDecksFromRunSheet({
      sheet: await readRunSheet(sheetFile),
      layout,
      run: SCALE_RUN,
      judge: offlineJudge,
      audienceProfiles: BUILT_IN_AUDIENCES,
    });
  });
  await planned('eval', () => planEval(builder, { dataDir: options.dataDir, run: SCALE_RUN }));
  const { env, cacheDir, noCache, limits } = clientOptions;
  await timed('5-6 evaluate', () =>
    runEvaluation({
      dataDir: options.dataDir,
      run: SCALE_RUN,
      judge: options.judge,
      ...(env ? { env } : {}),
      ...(cacheDir ? { cacheDir } : {}),
      ...(noCache !== undefined ? { noCache } : {}),
      ...(limits ? { limits } : {}),
    }),
  );
  const runMs = Object.entries(stages)
    .filter(([stage]) => !stage.startsWith('1') && !stage.startsWith('4'))
    .reduce((sum, [, ms]) => sum + ms, 0);
  return { planMs, runMs, stages, stagePeaks, layout };
}

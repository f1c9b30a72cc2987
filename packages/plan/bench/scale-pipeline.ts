// The X+SlidesBench-size pipeline through the real stage code, as the CLI runs it (cases, pairs and
// jobs one after another, each stage's default concurrency): stage 1 (extraction), 2 (probes through
// the model, optional), 3 (weights), 4 (the built-in generator's decks, offline planner: no judge
// calls), 5–6 (evaluation). Each judged stage is planned right before it runs, from the files
// the earlier stages wrote, so its plan rows are the planner's real test at scale.
import { mkdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { RunLayout } from '@xsb/core';
import {
  BASELINE_SYSTEM,
  generateDecksFromRunSheet,
  RUN_SHEET_COLUMNS,
  readRunSheet,
  writeCsvAtomic,
} from '@xsb/decks';
import { runEvaluation } from '@xsb/eval';
import type { CreateLlmClientOptions } from '@xsb/llm';
import { createProbeGenerator, generateCaseProbes } from '@xsb/probes';
import { discoverSourceCases, prepareSourceContext } from '@xsb/sources';
import { BUILT_IN_AUDIENCES, createUtilityJudge, ensureAudienceWeights } from '@xsb/weights';
import type { CostPlanBuilder } from '../src/cost-plan-builder';
import { planEval } from '../src/plan-eval';
import { planProbes } from '../src/plan-probes';
import { planWeights } from '../src/plan-weights';

export const SCALE_RUN = 'scale';

export async function runPipeline(
  builder: CostPlanBuilder,
  options: {
    dataDir: string;
    judge: string;
    clientOptions: CreateLlmClientOptions;
    withProbes: boolean;
  },
): Promise<{ planMs: number; runMs: number; stages: Record<string, number>; layout: RunLayout }> {
  const layout = new RunLayout(options.dataDir);
  const clientOptions = { ...options.clientOptions, ledgerFile: layout.usageLedgerFile(SCALE_RUN) };
  const stages: Record<string, number> = {};
  let planMs = 0;
  const timed = async (stage: string, work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    stages[stage] = Math.round(performance.now() - started);
  };
  const planned = async (work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    planMs += performance.now() - started;
  };
  const { cases } = await discoverSourceCases(options.dataDir);
  await timed('1 sources', async () => {
    for (const sourceCase of cases) await prepareSourceContext(layout, sourceCase);
  });
  if (options.withProbes) {
    await planned(() => planProbes(builder, { layout, cases }));
    const generator = createProbeGenerator(options.judge, clientOptions);
    // As `xsb probes` runs them: case after case, the stage's default 4 generations in flight.
    await timed('2 probes', async () => {
      for (const sourceCase of cases) await generateCaseProbes(layout, sourceCase, { generator });
    });
  }
  const pairs = cases.flatMap((sourceCase) =>
    sourceCase.metadata.valid_audiences.map((audience) => ({ caseLabel: sourceCase.caseId, audience })),
  );
  await planned(() => planWeights(builder, { layout, pairs }));
  const utilityJudge = createUtilityJudge(options.judge, clientOptions);
  // As `xsb weights` runs them: pair after pair, the stage's default 4 calls in flight.
  await timed('3 weights', async () => {
    for (const { caseLabel, audience } of pairs)
      await ensureAudienceWeights(layout, caseLabel, audience, { judge: utilityJudge });
  });
  await timed('4 decks', async () => {
    const sheetFile = join(layout.runDir(SCALE_RUN), 'run_sheet.csv');
    const rows = cases.flatMap((sourceCase) => {
      const base = {
        system: BASELINE_SYSTEM,
        case_label: sourceCase.caseId,
        source_document: relative(dirname(sheetFile), sourceCase.sourceFile),
        prompt_path: '',
        output_deck_path: '',
      };
      return [
        { ...base, condition: 'audience_agnostic', audience: 'all' },
        ...sourceCase.metadata.valid_audiences.map((audience) => ({
          ...base,
          condition: 'audience_conditioned',
          audience,
        })),
      ];
    });
    await mkdir(dirname(sheetFile), { recursive: true });
    await writeCsvAtomic(sheetFile, RUN_SHEET_COLUMNS, rows);
    await generateDecksFromRunSheet({
      sheet: await readRunSheet(sheetFile),
      layout,
      run: SCALE_RUN,
      planner: 'lexical',
      audienceProfiles: BUILT_IN_AUDIENCES,
    });
  });
  await planned(() => planEval(builder, { dataDir: options.dataDir, run: SCALE_RUN }));
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
  return { planMs, runMs, stages, layout };
}

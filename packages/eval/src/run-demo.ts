import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ConfigError,
  type MetricsSummary,
  type ProgressReporter,
  RunLayout,
  writeFileAtomic,
} from '@xsb/core';
import {
  BASELINE_SYSTEM,
  generateDecksFromRunSheet,
  importExternalDecks,
  RUN_SHEET_COLUMNS,
  readRunSheet,
  writeCsvAtomic,
} from '@xsb/decks';
import { createJudge, describeJudge, type Judge, preferredConcurrencyFor } from '@xsb/llm';
import { renderResultsTables } from '@xsb/metrics';
import { createProbeGenerator, generateRunProbes } from '@xsb/probes';
import { discoverSourceCases, prepareSourceContext, type SourceCase } from '@xsb/sources';
import { BUILT_IN_AUDIENCES, createUtilityJudge, weighRun } from '@xsb/weights';
import { aggregateRun } from './aggregate-run';
import { countLedgerLines } from './count-ledger-lines';
import type { JobResult } from './evaluate-job';
import { type ModelClientSettings, runClientOptions, runEvaluation } from './run-evaluation';

export const DEMO_RUN = 'demo';
/** The imported system of the demo: a NotebookLM-style PDF export. */
export const DEMO_IMPORTED_SYSTEM = 'notebooklm';

/** The repository's `fixtures/` folder, from this module (src/ or dist/ alike sit two levels below it). */
export function defaultFixturesDir(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'fixtures');
}

export interface RunDemoOptions extends ModelClientSettings {
  /** Output folder; the data folder is `<outDir>/data`. */
  outDir: string;
  judge?: string;
  tauA?: number;
  fixturesDir?: string;
  /**
   * Source cases to copy instead of `<fixtures>/sources` (one folder per case, e.g.
   * `fixtures/bench/sources`). The NotebookLM-style import is skipped then: its PDFs belong to the
   * default fixtures' cases.
   */
  sourcesDir?: string;
  force?: boolean;
  progress?: ProgressReporter;
  /** Stage notes as they happen. */
  log?: (line: string) => void;
}

export interface DemoStageTiming {
  stage: string;
  ms: number;
  note: string;
}

export interface RunDemoResult {
  dataDir: string;
  summary: MetricsSummary;
  summaryFiles: { json: string; csv: string; report: string };
  evaluations: JobResult[];
  /** Judge calls recorded in the run's usage ledger during this demo run. */
  judgeCalls: number;
  timings: DemoStageTiming[];
  failures: string[];
  tables: string[];
}

async function copyIfChanged(from: string, to: string): Promise<boolean> {
  const bytes = await readFile(from);
  if (existsSync(to) && Buffer.compare(await readFile(to), bytes) === 0) return false;
  await writeFileAtomic(to, bytes);
  return true;
}

/** What every stage of a demo run shares. */
interface DemoFrame {
  options: RunDemoOptions;
  judge: string;
  fixturesDir: string;
  fixtureSources: string;
  dataDir: string;
  layout: RunLayout;
  llmOptions: ReturnType<typeof runClientOptions>;
  /** Calls in flight per stage under `batch` (a provider batch collects a whole stage); else unset. */
  wide: number | undefined;
  force: boolean;
  failures: string[];
}

type StageWork<T> = Promise<{ value: T; note: string }>;

/** Stage 1: the fixtures' sources copied (only changed files) and their contexts extracted. */
async function demoSources(frame: DemoFrame): StageWork<SourceCase[]> {
  const { layout, fixtureSources, force } = frame;
  let copied = 0;
  for (const caseId of (await readdir(fixtureSources)).sort()) {
    for (const file of await readdir(join(fixtureSources, caseId))) {
      if (await copyIfChanged(join(fixtureSources, caseId, file), join(layout.sourceDir(caseId), file)))
        copied += 1;
    }
  }
  const discovered = await discoverSourceCases(frame.dataDir);
  for (const failure of discovered.failures)
    frame.failures.push(`source ${failure.caseId}: ${failure.error.message}`);
  let prepared = 0;
  for (const sourceCase of discovered.cases) {
    const result = await prepareSourceContext(layout, sourceCase, { force });
    if (!result.skipped) prepared += 1;
  }
  return {
    value: discovered.cases,
    note: `${discovered.cases.length} cases (${copied} files copied, ${prepared} contexts extracted)`,
  };
}

/** Stage 2: a probe bank per case. */
async function demoProbes(
  frame: DemoFrame,
  cases: SourceCase[],
  generator: ReturnType<typeof createProbeGenerator>,
): StageWork<undefined> {
  const { wide } = frame;
  // The library's stage-2 loop (as `xsb probes`): cases and each case's calls `wide` at a time.
  const results = await generateRunProbes(
    frame.layout,
    { cases, failures: [] },
    { generator, force: frame.force, ...(wide ? { concurrency: wide } : {}) },
  );
  const counts = results.map((result) => {
    if (result.status === 'failed') frame.failures.push(`probes ${result.caseId}: ${result.error}`);
    return `${result.caseId} ${result.generationStatus?.counts.final ?? 0} (${result.status})`;
  });
  return { value: undefined, note: counts.join(', ') };
}

/** Stage 3: weights for every case and valid audience. */
async function demoWeights(
  frame: DemoFrame,
  cases: SourceCase[],
  utilityJudge: ReturnType<typeof createUtilityJudge>,
): StageWork<undefined> {
  const { wide, layout } = frame;
  // A case whose stage 2 failed has no bank: recorded here, since weighRun refuses a run with no bank at all.
  if (!cases.some((sourceCase) => existsSync(layout.probesFile(sourceCase.caseId)))) {
    for (const sourceCase of cases) frame.failures.push(`weights ${sourceCase.caseId}: no probe bank`);
    return { value: undefined, note: '0 weight files (no probe bank)' };
  }
  // The library's stage-3 loop (as `xsb weights`): pairs and each pair's calls `wide` at a time.
  const rows = await weighRun(
    layout,
    { cases, failures: [] },
    { judge: utilityJudge, force: frame.force, ...(wide ? { concurrency: wide } : {}) },
  );
  let made = 0;
  for (const row of rows) {
    if (row.status === 'failed')
      frame.failures.push(`weights ${row.caseLabel}/${row.audience}: ${row.error}`);
    if (row.status !== 'skipped') made += 1;
  }
  return { value: undefined, note: `${rows.length} weight files (${made} written)` };
}

/** The demo's run sheet: the baseline agnostic per case and conditioned per case × audience. */
export function demoSheetRows(
  cases: readonly SourceCase[],
  sheetFile: string,
): Array<Record<string, string>> {
  return cases.flatMap((sourceCase) => {
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
}

/** Stage 4: the run sheet's baseline decks, then (default fixtures only) the NotebookLM-style import. */
async function demoDecks(frame: DemoFrame, cases: SourceCase[], planner: Judge): StageWork<undefined> {
  const { layout, force, failures } = frame;
  const sheetFile = join(layout.runDir(DEMO_RUN), 'run_sheet.csv');
  await mkdir(dirname(sheetFile), { recursive: true });
  await writeCsvAtomic(sheetFile, RUN_SHEET_COLUMNS, demoSheetRows(cases, sheetFile));
  const sheet = await readRunSheet(sheetFile);
  const batch = await generateDecksFromRunSheet({
    sheet,
    layout,
    run: DEMO_RUN,
    judge: planner,
    audienceProfiles: BUILT_IN_AUDIENCES,
    force,
  });
  for (const row of batch.rows)
    if (row.status === 'failed')
      failures.push(`deck ${row.system}/${row.condition}/${row.audience}/${row.case_label}: ${row.message}`);
  const generated = `${batch.done} generated, ${batch.skipped} current`;
  if (frame.options.sourcesDir) return { value: undefined, note: `${generated}; no import (custom sources)` };
  const imported = await importExternalDecks({
    system: DEMO_IMPORTED_SYSTEM,
    fromDir: join(frame.fixturesDir, 'demo', 'notebooklm'),
    layout,
    run: DEMO_RUN,
    force,
  });
  for (const skipped of imported.skipped) failures.push(`import ${skipped.file}: ${skipped.reason}`);
  return {
    value: undefined,
    note: `${generated}; ${imported.imported.length} imported, ${imported.unchanged.length} unchanged`,
  };
}

/** Stages 5–6: every deck of the run evaluated, metrics written. */
async function demoEvaluation(frame: DemoFrame): StageWork<Awaited<ReturnType<typeof runEvaluation>>> {
  const { options, dataDir, wide } = frame;
  const result = await runEvaluation({
    dataDir,
    run: DEMO_RUN,
    judge: frame.judge,
    ...(options.tauA !== undefined ? { tauA: options.tauA } : {}),
    force: frame.force,
    ...frame.llmOptions,
    ...(wide ? { concurrency: wide, jobConcurrency: wide } : {}),
    ...(options.progress ? { progress: options.progress } : {}),
  });
  for (const job of result.results)
    if (job.outcome === 'failed')
      frame.failures.push(`evaluate ${relative(dataDir, job.evaluationDir)}: ${job.error}`);
  for (const failure of result.discoveryFailures) frame.failures.push(`evaluate ${failure.error.message}`);
  const evaluated = result.results.filter((r) => r.outcome === 'evaluated').length;
  const reused = result.results.filter((r) => r.outcome === 'reused').length;
  return { value: result, note: `${result.results.length} jobs (${evaluated} judged, ${reused} current)` };
}

/** Stage 7: the run aggregated; a job without metrics that stage 5 did not report is a failure. */
async function demoAggregate(frame: DemoFrame): StageWork<Awaited<ReturnType<typeof aggregateRun>>> {
  const value = await aggregateRun({ dataDir: frame.dataDir, run: DEMO_RUN });
  for (const skipped of value.summary.skipped)
    frame.failures.push(`aggregate ${skipped.file}: ${skipped.reason}`);
  // Failed and undiscoverable jobs were reported by stage 5 already; any other job without metrics
  // (deleted meanwhile, or killed half-way by another process) would otherwise drop out silently.
  for (const job of value.summary.missing_jobs ?? [])
    if (job.status !== 'failed' && job.status !== 'undiscoverable')
      frame.failures.push(`aggregate: no metrics for ${job.where} (${job.status}): ${job.reason}`);
  return { value, note: `${value.summary.row_count} rows in ${value.summary.groups.length} groups` };
}

/** The demo's settings, its fixtures checked (a missing sources folder: ConfigError). */
function demoFrame(options: RunDemoOptions): DemoFrame {
  const judge = options.judge ?? 'lexical';
  const fixturesDir = options.fixturesDir ?? defaultFixturesDir();
  const fixtureSources = options.sourcesDir ?? join(fixturesDir, 'sources');
  if (!existsSync(fixtureSources))
    throw new ConfigError(
      options.sourcesDir
        ? `${fixtureSources}: no such sources folder (one folder per case, each with one source file)`
        : `${fixtureSources}: demo fixtures not found (the @xsb/fixtures package is missing or incomplete)`,
    );
  const dataDir = resolve(options.outDir, 'data');
  const layout = new RunLayout(dataDir);
  const llmOptions = runClientOptions(options, layout.usageLedgerFile(DEMO_RUN));
  const offline = describeJudge(judge).kind === 'offline';
  return {
    options,
    judge,
    fixturesDir,
    fixtureSources,
    dataDir,
    layout,
    llmOptions,
    wide: options.batch && !offline ? preferredConcurrencyFor(judge, llmOptions) : undefined,
    force: options.force ?? false,
    failures: [],
  };
}

/**
 * `xsb demo`: stages 1–7 on the shipped fixtures into `<outDir>/data` (spec 000 layout): sources are
 * copied from `fixtures/sources`, probes and weights made for every case and audience, the built-in
 * baseline generates an agnostic deck per case and a conditioned deck per (case, audience), the
 * NotebookLM-style PDFs of `fixtures/demo/notebooklm` are imported, every deck is evaluated, metrics
 * written and aggregated into `runs/demo/summary/`. Every stage skips finished work, so a second run
 * makes no judge call and a killed run continues where it stopped.
 */
export async function runDemo(options: RunDemoOptions): Promise<RunDemoResult> {
  const frame = demoFrame(options);
  const { judge, llmOptions } = frame;
  const log = options.log ?? (() => {});
  const timings: DemoStageTiming[] = [];
  // Every judge is built before any work, so a missing key or replay store stops the demo (exit 2)
  // before stage 1 copies a file.
  const generator = createProbeGenerator(createJudge(judge, { stage: 'probes', ...llmOptions }));
  const utilityJudge = createUtilityJudge(createJudge(judge, { stage: 'weights', ...llmOptions }));
  // Stage 4 plans one deck at a time (each outline waits for its answer before the deck is written),
  // so a batch would hold one request and wait minutes for it: the planner stays online under `batch`.
  const { batch: _batch, ...onlineOptions } = llmOptions;
  const planner = createJudge(judge, { stage: 'decks', ...onlineOptions });
  const ledgerFile = frame.layout.usageLedgerFile(DEMO_RUN);
  const ledgerBefore = await countLedgerLines(ledgerFile);
  const timed = async <T>(stage: string, work: () => StageWork<T>): Promise<T> => {
    const started = performance.now();
    const { value, note } = await work();
    const ms = performance.now() - started;
    timings.push({ stage, ms, note });
    log(`${stage}: ${note} (${(ms / 1000).toFixed(1)} s)`);
    return value;
  };
  const cases = await timed('1 sources', () => demoSources(frame));
  await timed('2 probes', () => demoProbes(frame, cases, generator));
  await timed('3 weights', () => demoWeights(frame, cases, utilityJudge));
  await timed('4 decks', () => demoDecks(frame, cases, planner));
  const evaluation = await timed('5-6 evaluate + metrics', () => demoEvaluation(frame));
  const aggregated = await timed('7 aggregate', () => demoAggregate(frame));
  return {
    dataDir: frame.dataDir,
    summary: aggregated.summary,
    summaryFiles: aggregated.files,
    evaluations: evaluation.results,
    judgeCalls: (await countLedgerLines(ledgerFile)) - ledgerBefore,
    timings,
    failures: frame.failures,
    tables: renderResultsTables(aggregated.summary),
  };
}

import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ConfigError,
  type MetricsSummary,
  mapWithConcurrency,
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
import { createLlmClient, isOfflineJudge, preferredConcurrencyFor } from '@xsb/llm';
import { renderResultsTables } from '@xsb/metrics';
import { createProbeGenerator, generateCaseProbes } from '@xsb/probes';
import { discoverSourceCases, prepareSourceContext } from '@xsb/sources';
import { BUILT_IN_AUDIENCES, createUtilityJudge, ensureAudienceWeights } from '@xsb/weights';
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

/**
 * `xsb demo`: stages 1–7 on the shipped fixtures into `<outDir>/data` (spec 000 layout): sources are
 * copied from `fixtures/sources`, probes and weights made for every case and audience, the built-in
 * baseline generates an agnostic deck per case and a conditioned deck per (case, audience), the
 * NotebookLM-style PDFs of `fixtures/demo/notebooklm` are imported, every deck is evaluated, metrics
 * written and aggregated into `runs/demo/summary/`. Every stage skips finished work, so a second run
 * makes no judge call and a killed run continues where it stopped.
 */
export async function runDemo(options: RunDemoOptions): Promise<RunDemoResult> {
  const judge = options.judge ?? 'lexical';
  const fixturesDir = options.fixturesDir ?? defaultFixturesDir();
  const fixtureSources = options.sourcesDir ?? join(fixturesDir, 'sources');
  if (!existsSync(fixtureSources))
    throw new ConfigError(
      options.sourcesDir
        ? `${fixtureSources}: no such sources folder (one folder per case, each with one source file)`
        : `${fixtureSources}: demo fixtures not found (run xsb demo from an xsb checkout)`,
    );
  const dataDir = resolve(options.outDir, 'data');
  const layout = new RunLayout(dataDir);
  const ledgerFile = layout.usageLedgerFile(DEMO_RUN);
  const llmOptions = runClientOptions(options, ledgerFile);
  // With `batch`, every judged stage keeps as many calls in flight as a batch holds (cases, pairs and
  // jobs at once), so a provider batch collects a whole stage; the artifacts are the same.
  const wide =
    options.batch && !isOfflineJudge(judge) ? preferredConcurrencyFor(judge, llmOptions) : undefined;
  const log = options.log ?? (() => {});
  const force = options.force ?? false;
  const timings: DemoStageTiming[] = [];
  const failures: string[] = [];
  // Every judge is built before any work, so a missing key or replay store stops the demo (exit 2)
  // before stage 1 copies a file.
  const generator = createProbeGenerator(judge, llmOptions);
  const utilityJudge = createUtilityJudge(judge, llmOptions);
  // Stage 4 plans one deck at a time (each outline waits for its answer before the deck is written),
  // so a batch would hold one request and wait minutes for it: the planner stays online under `batch`.
  const { batch: _batch, ...onlineOptions } = llmOptions;
  const planner = isOfflineJudge(judge)
    ? ('lexical' as const)
    : createLlmClient(judge, { stage: 'decks', ...onlineOptions });
  const ledgerBefore = await countLedgerLines(ledgerFile);
  const timed = async <T>(stage: string, work: () => Promise<{ value: T; note: string }>): Promise<T> => {
    const started = performance.now();
    const { value, note } = await work();
    const ms = performance.now() - started;
    timings.push({ stage, ms, note });
    log(`${stage}: ${note} (${(ms / 1000).toFixed(1)} s)`);
    return value;
  };

  const cases = await timed('1 sources', async () => {
    let copied = 0;
    for (const caseId of (await readdir(fixtureSources)).sort()) {
      for (const file of await readdir(join(fixtureSources, caseId))) {
        if (await copyIfChanged(join(fixtureSources, caseId, file), join(layout.sourceDir(caseId), file)))
          copied += 1;
      }
    }
    const discovered = await discoverSourceCases(dataDir);
    for (const failure of discovered.failures)
      failures.push(`source ${failure.caseId}: ${failure.error.message}`);
    let prepared = 0;
    for (const sourceCase of discovered.cases) {
      const result = await prepareSourceContext(layout, sourceCase, { force });
      if (!result.skipped) prepared += 1;
    }
    return {
      value: discovered.cases,
      note: `${discovered.cases.length} cases (${copied} files copied, ${prepared} contexts extracted)`,
    };
  });

  await timed('2 probes', async () => {
    const counts: string[] = [];
    const results = await mapWithConcurrency(cases, wide ?? 1, (sourceCase) =>
      generateCaseProbes(layout, sourceCase, { generator, force, ...(wide ? { concurrency: wide } : {}) }),
    );
    for (const [index, result] of results.entries()) {
      const sourceCase = cases[index]!;
      if (result.status === 'failed') failures.push(`probes ${sourceCase.caseId}: ${result.error}`);
      counts.push(`${sourceCase.caseId} ${result.generationStatus?.counts.final ?? 0} (${result.status})`);
    }
    return { value: undefined, note: counts.join(', ') };
  });

  await timed('3 weights', async () => {
    let made = 0;
    const pairs = cases.flatMap((sourceCase) =>
      sourceCase.metadata.valid_audiences.map((audience) => ({ caseId: sourceCase.caseId, audience })),
    );
    const results = await mapWithConcurrency(pairs, wide ?? 1, ({ caseId, audience }) =>
      ensureAudienceWeights(layout, caseId, audience, {
        judge: utilityJudge,
        force,
        ...(wide ? { concurrency: wide } : {}),
      }),
    );
    for (const [index, result] of results.entries()) {
      const { caseId, audience } = pairs[index]!;
      if (result.status === 'failed') failures.push(`weights ${caseId}/${audience}: ${result.error}`);
      if (result.status !== 'skipped') made += 1;
    }
    return { value: undefined, note: `${pairs.length} weight files (${made} written)` };
  });

  await timed('4 decks', async () => {
    const sheetFile = join(layout.runDir(DEMO_RUN), 'run_sheet.csv');
    const rows: Array<Record<string, string>> = [];
    for (const sourceCase of cases) {
      const source = relative(dirname(sheetFile), sourceCase.sourceFile);
      const base = {
        system: BASELINE_SYSTEM,
        case_label: sourceCase.caseId,
        source_document: source,
        prompt_path: '',
        output_deck_path: '',
      };
      rows.push({ ...base, condition: 'audience_agnostic', audience: 'all' });
      for (const audience of sourceCase.metadata.valid_audiences)
        rows.push({ ...base, condition: 'audience_conditioned', audience });
    }
    await mkdir(dirname(sheetFile), { recursive: true });
    await writeCsvAtomic(sheetFile, RUN_SHEET_COLUMNS, rows);
    const sheet = await readRunSheet(sheetFile);
    const batch = await generateDecksFromRunSheet({
      sheet,
      layout,
      run: DEMO_RUN,
      planner,
      audienceProfiles: BUILT_IN_AUDIENCES,
      force,
    });
    for (const row of batch.rows)
      if (row.status === 'failed')
        failures.push(
          `deck ${row.system}/${row.condition}/${row.audience}/${row.case_label}: ${row.message}`,
        );
    if (options.sourcesDir)
      return {
        value: undefined,
        note: `${batch.done} generated, ${batch.skipped} current; no import (custom sources)`,
      };
    const imported = await importExternalDecks({
      system: DEMO_IMPORTED_SYSTEM,
      fromDir: join(fixturesDir, 'demo', 'notebooklm'),
      layout,
      run: DEMO_RUN,
      force,
    });
    for (const skipped of imported.skipped) failures.push(`import ${skipped.file}: ${skipped.reason}`);
    return {
      value: undefined,
      note: `${batch.done} generated, ${batch.skipped} current; ${imported.imported.length} imported, ${imported.unchanged.length} unchanged`,
    };
  });

  const evaluation = await timed('5-6 evaluate + metrics', async () => {
    const result = await runEvaluation({
      dataDir,
      run: DEMO_RUN,
      judge,
      ...(options.tauA !== undefined ? { tauA: options.tauA } : {}),
      force,
      ...llmOptions,
      ...(wide ? { concurrency: wide, jobConcurrency: wide } : {}),
      ...(options.progress ? { progress: options.progress } : {}),
    });
    for (const job of result.results)
      if (job.outcome === 'failed')
        failures.push(`evaluate ${relative(dataDir, job.evaluationDir)}: ${job.error}`);
    for (const failure of result.discoveryFailures) failures.push(`evaluate ${failure.error.message}`);
    const evaluated = result.results.filter((r) => r.outcome === 'evaluated').length;
    const reused = result.results.filter((r) => r.outcome === 'reused').length;
    return { value: result, note: `${result.results.length} jobs (${evaluated} judged, ${reused} current)` };
  });

  const aggregated = await timed('7 aggregate', async () => {
    const value = await aggregateRun({ dataDir, run: DEMO_RUN });
    for (const skipped of value.summary.skipped)
      failures.push(`aggregate ${skipped.file}: ${skipped.reason}`);
    // Failed and undiscoverable jobs were reported by stage 5 already; any other job without metrics
    // (deleted meanwhile, or killed half-way by another process) would otherwise drop out silently.
    for (const job of value.summary.missing_jobs ?? [])
      if (job.status !== 'failed' && job.status !== 'undiscoverable')
        failures.push(`aggregate: no metrics for ${job.where} (${job.status}): ${job.reason}`);
    return { value, note: `${value.summary.row_count} rows in ${value.summary.groups.length} groups` };
  });

  return {
    dataDir,
    summary: aggregated.summary,
    summaryFiles: aggregated.files,
    evaluations: evaluation.results,
    judgeCalls: (await countLedgerLines(ledgerFile)) - ledgerBefore,
    timings,
    failures,
    tables: renderResultsTables(aggregated.summary),
  };
}

import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, relative, sep } from 'node:path';
import {
  compareCodePoints,
  type Deck,
  describeError,
  hashCanonicalJson,
  isCaseInShard,
  JsonlWriter,
  type ProgressReporter,
  plural,
  RunLayout,
  readJson,
  runManifestSchema,
  type Shard,
  shardFileTag,
  shardLabel,
  silentProgress,
  UsageError,
  writeFileAtomic,
  writeJson,
} from '@xsb/core';
import { SlideRenderStore } from '@xsb/decks';
import {
  type DiscoveryFailure,
  discoverDeckRows,
  type EvaluationJob,
  expandEvaluationJobs,
  type RenderSlides,
  runEvaluation,
} from '@xsb/eval';
import {
  type BatchOptions,
  type CreateLlmClientOptions,
  createJudge,
  createLlmClient,
  fillLabelFor,
  type LlmClient,
  parseJudgeSpec,
  preferredConcurrencyFor,
} from '@xsb/llm';
import {
  DEFAULT_BOOTSTRAP_RESAMPLES,
  DEFAULT_BOOTSTRAP_SEED,
  EVALUATION_FILES,
  evaluationsRootFor,
  systemIdFor,
} from '@xsb/metrics';
import { BenchLayout } from '../bench-layout';
import { BENCH_METRICS } from '../bench-metrics';
import { summarizeBenchRun } from '../compare/summarize-run';
import { type ConfigurationPlan, planConfigurations } from '../configurations/configuration-sets';
import {
  applyOverrides,
  baseEvaluationSettings,
  evaluationVariant,
  settingsDigest,
} from '../configurations/evaluation-settings';
import {
  assertServableConfigurations,
  type LeftOutFactor,
  selectServableFactors,
} from '../configurations/judge-capable-factors';
import { loadBenchConfig } from '../configurations/load-bench-config';
import { renderBenchReport } from '../report/render-report';
import { type BenchRow, benchRowSchema } from '../schemas/bench-row';
import type { BenchConfiguration, BenchEvaluationSettings, BenchJudge, BenchRun } from '../schemas/bench-run';
import type { BenchSplitName } from '../schemas/bench-split';
import { type BenchSummary, benchSummarySchema } from '../schemas/bench-summary';
import { type BenchCase, discoverBenchCases } from '../splits/bench-cases';
import { readSplits } from '../splits/bench-splits';
import { benchRowFor, discoveryErrorRow, type RowContext } from './bench-row';
import { DesignScorer } from './design-scorer';
import { readGitState } from './git-state';
import { countDistinctWork, countEvaluationCalls } from './judge-calls';
import { benchJudgeInfo } from './judge-info';
import {
  chooseReference,
  type ReferenceFrom,
  referenceReason,
  runSheetSystemOrder,
} from './reference-system';
import { RubricScorer } from './rubric-for-deck';
import { createRunDir, markInterruptedRuns, writeRunRecord } from './run-record';
import { appendTestLedger, countTestLedger } from './test-ledger';

/** Comparisons on fewer cases than this are diagnostics, not results (spec 002's DIAG_BELOW). */
export const DEFAULT_DIAG_BELOW = 10;

export type BenchSplitSelection = BenchSplitName | 'all';

export type BenchClientSettings = Pick<
  CreateLlmClientOptions,
  'env' | 'cacheDir' | 'noCache' | 'refresh' | 'limits' | 'prices' | 'providers'
>;

/** `--fill JUDGE [--batch]`: who answers the prompts a `record:` store lacks, online or through batches. */
export interface BenchFill {
  /** `anthropic:<model>` or `openai:<model>`; the store's model label becomes this spec. */
  judge: string;
  /** Through the provider's batch API (state in `stateDir`, e.g. the pipeline run's folder). */
  batch?: BatchOptions;
}

export interface RunBenchOptions extends BenchClientSettings {
  dataDir: string;
  /** The pipeline run whose decks are evaluated (`runs/<run>/decks/`). */
  pipelineRun: string;
  split?: BenchSplitSelection;
  unsealTest?: boolean;
  /** `default` (built in), `ladder`, `loo`, `factorial` or a comma list of configuration names. */
  configs?: string;
  /** Factors of a generated set (default: all declared, built-in ones first). */
  factors?: string[];
  /** System ids `<generator>__<condition>` (default: every system of the run). */
  systems?: string[];
  /** The system every other is paired against (default: the first of `systems`). */
  reference?: string;
  /** `lexical` (default), `replay:<store>` or `record:<store>`. */
  judge?: string;
  /**
   * With a `record:` judge: prompts the store lacks are answered by this model (and appended to the
   * store under its label) instead of failing their rows, so the run stays pinned to one store.
   */
  fill?: BenchFill;
  /** Only the split's cases with `md5(case) % n == i` (core's rule); the run record says which shard. */
  shard?: Shard;
  tauA?: number;
  seed?: number;
  resamples?: number;
  diagBelow?: number;
  /** The metric the factorial's Shapley values attribute (default coverage). */
  shapleyMetric?: string;
  /**
   * Also measure every deck's design metrics (@xsb/design: rendered once per deck, cached beside it and in
   * the run's slide renders) as metrics `design.<name>`, compared like every other. Off by default: it
   * renders every deck (LibreOffice for PPTX).
   */
  design?: boolean;
  /** Default `<data>/bench.yaml`. */
  benchConfigFile?: string;
  /** Where the git state is read (default: the data folder, then the working folder). */
  gitDirs?: string[];
  progress?: ProgressReporter;
  /**
   * What the run chose where the user did not say, once every check passed and before any work: the
   * reference and how it was chosen, each factor left out of the default set and why (one line each).
   */
  onNotice?: (line: string) => void;
  readDeck?: (file: string) => Promise<Deck>;
  renderSlides?: RenderSlides;
  now?: () => Date;
}

export interface BenchRunResult {
  runId: string;
  dir: string;
  run: BenchRun;
  summary: BenchSummary;
  rows: BenchRow[];
  report: string;
  /** Usage-ledger lines of the pipeline run appended during the bench run (every stage). */
  ledgerLines: number;
}

interface PreparedBench {
  options: RunBenchOptions;
  bench: BenchLayout;
  layout: RunLayout;
  split: BenchSplitSelection;
  cases: Map<string, { benchCase: BenchCase; split: BenchSplitName }>;
  systems: string[];
  reference: string | null;
  referenceFrom: ReferenceFrom | null;
  plan: ConfigurationPlan;
  leftOut: LeftOutFactor[];
  configurations: Array<BenchConfiguration & { variant: string | undefined }>;
  judges: BenchJudge[];
  runJudge: string;
  discoveryFailures: DiscoveryFailure[];
  inputFailures: Array<{ where: string; error: string }>;
  jobCount: number;
}

/**
 * Everything `xsb bench run` checks before any work, in the order a user wants to hear it: a sealed
 * split, the judge, the stored split, the pipeline run's decks and systems, the configurations and
 * factors. Every problem is a UsageError or ConfigError (exit 2) and nothing is written.
 */
async function prepareBench(options: RunBenchOptions): Promise<PreparedBench> {
  const split = options.split ?? 'dev';
  if (!['dev', 'test', 'all'].includes(split))
    throw new UsageError(`split must be dev, test or all, got "${split}"`);
  if (split !== 'dev' && !options.unsealTest)
    throw new UsageError(
      `split ${split} opens the sealed test split: it must be unsealed on purpose (the opening is recorded in bench/test_ledger.jsonl); tune on dev, look at test once`,
      { code: 'sealed_split' },
    );
  const runJudge = options.judge ?? 'lexical';
  const bench = new BenchLayout(options.dataDir);
  const layout = new RunLayout(options.dataDir);
  const splits = await readSplits(bench);
  if (splits.length === 0)
    throw new UsageError(`no stored split in ${bench.splitsFile()}: split the cases first`, {
      code: 'missing_file',
      remedy: { step: 'bench-split', dataDir: options.dataDir },
    });
  const discovered = await discoverBenchCases(options.dataDir);
  const byId = new Map(discovered.cases.map((c) => [c.case, c]));
  const cases = new Map<string, { benchCase: BenchCase; split: BenchSplitName }>();
  for (const row of splits) {
    if (split !== 'all' && row.split !== split) continue;
    const benchCase = byId.get(row.case);
    // Rubric-only cases have no source, hence no probes and no decks of a pipeline run.
    if (benchCase?.source) cases.set(row.case, { benchCase, split: row.split });
  }
  if (cases.size === 0) throw new UsageError(`the ${split} split holds no source case of ${options.dataDir}`);
  if (options.shard) {
    const all = cases.size;
    for (const id of [...cases.keys()]) if (!isCaseInShard(id, options.shard)) cases.delete(id);
    if (cases.size === 0)
      throw new UsageError(
        `shard ${shardLabel(options.shard)} holds none of the ${plural(all, 'case')} of the ${split} split; use fewer shards`,
      );
  }
  if (options.fill) {
    if (parseJudgeSpec(runJudge).kind !== 'record')
      throw new UsageError(
        `a filling judge answers the prompts a record store lacks, so the run's judge must be record:STORE (it is "${runJudge}")`,
      );
    fillLabelFor(options.fill.judge);
  }
  if (!existsSync(layout.decksRoot(options.pipelineRun)))
    throw new UsageError(
      `run "${options.pipelineRun}": deck folder ${layout.decksRoot(options.pipelineRun)} does not exist; generate or import decks first`,
    );
  const { rows: deckRows, failures: rowFailures } = await discoverDeckRows(layout, options.pipelineRun);
  const caseIds = [...cases.keys()];
  const inSplit = deckRows.filter((row) => cases.has(row.caseLabel));
  const available = [...new Set(inSplit.map((row) => systemIdFor(row.system, row.condition)))].sort(
    compareCodePoints,
  );
  const systems = options.systems && options.systems.length > 0 ? [...options.systems] : available;
  const unknown = systems.filter((system) => !available.includes(system));
  if (unknown.length > 0)
    throw new UsageError(
      `unknown system ${unknown.map((s) => JSON.stringify(s)).join(', ')} in run "${options.pipelineRun}" (systems with decks of ${split} cases: ${available.join(', ') || 'none'})`,
    );
  if (systems.length === 0)
    throw new UsageError(`run "${options.pipelineRun}" has no deck of a ${split} case`);
  const { reference, from: referenceFrom } = chooseReference({
    reference: options.reference,
    systemsFlag: options.systems,
    systems,
    sheetOrder: await runSheetSystemOrder(layout, options.pipelineRun),
  });
  const selected = inSplit.filter((row) => systems.includes(systemIdFor(row.system, row.condition)));
  const { jobs, failures: jobFailures } = await expandEvaluationJobs(layout, selected, { cases: caseIds });

  const config = await loadBenchConfig(options.benchConfigFile ?? bench.configFile(), {
    required: options.benchConfigFile !== undefined,
  });
  const spec = options.configs ?? 'default';
  const generated = ['ladder', 'loo', 'factorial'].includes(spec);
  if (options.factors && options.factors.length > 0 && !generated)
    throw new UsageError('factors apply only to the generated configurations (ladder, loo, factorial)');
  const { factors, leftOut } = generated
    ? selectServableFactors(config.factors, runJudge, options.factors)
    : { factors: [], leftOut: [] };
  const plan = planConfigurations(spec, factors, config.configurations);
  if (!generated) assertServableConfigurations(plan.configurations, runJudge);
  const shapleyMetric = options.shapleyMetric ?? 'coverage';
  if (!BENCH_METRICS.includes(shapleyMetric))
    throw new UsageError(
      `the Shapley metric must be one of ${BENCH_METRICS.join(', ')}, got "${shapleyMetric}"`,
    );
  const base = baseEvaluationSettings(runJudge, options.tauA);
  const runJudgeInfo = benchJudgeInfo(runJudge);
  const judges = new Map<string, BenchJudge>([
    [
      runJudge,
      options.fill
        ? { ...runJudgeInfo, model_label: fillLabelFor(options.fill.judge), filled_by: options.fill.judge }
        : runJudgeInfo,
    ],
  ]);
  const configurations = plan.configurations.map((planned) => {
    const settings: BenchEvaluationSettings = applyOverrides(base, planned.overrides);
    if (!judges.has(settings.judge)) judges.set(settings.judge, benchJudgeInfo(settings.judge));
    const variant = evaluationVariant(settings, runJudge);
    return {
      name: planned.name,
      factors: planned.factors,
      overrides: planned.overrides,
      settings,
      settings_digest: settingsDigest(settings, runJudge),
      evaluations_dir: relative(options.dataDir, evaluationsRootFor(layout, options.pipelineRun, variant))
        .split(sep)
        .join('/'),
      variant,
    };
  });
  const onSystems = (failure: DiscoveryFailure) => {
    const parts = relative(layout.decksRoot(options.pipelineRun), failure.where).split(sep);
    return parts.length >= 4 && systems.includes(systemIdFor(parts[0]!, parts[1]!)) && cases.has(parts[3]!);
  };
  return {
    options,
    bench,
    layout,
    split,
    cases,
    systems,
    reference,
    referenceFrom,
    plan: { ...plan, factors: plan.factors },
    leftOut,
    configurations,
    judges: [...judges.values()],
    runJudge,
    discoveryFailures: [...rowFailures, ...jobFailures].filter(onSystems),
    inputFailures: discovered.failures.map((failure) => ({
      where: relative(options.dataDir, failure.where).split(sep).join('/'),
      error: failure.error.message,
    })),
    jobCount: jobs.length * configurations.length,
  };
}

/** The choices `onNotice` reports, in the words the report uses. */
function benchNotices(prepared: PreparedBench): string[] {
  return [
    ...(prepared.reference === null
      ? []
      : [`reference: ${prepared.reference} (${referenceReason(prepared.referenceFrom)})`]),
    ...prepared.leftOut.map((left) => `left out factor ${left.factor}: ${left.reason}`),
  ];
}

function runRecordOf(
  prepared: PreparedBench,
  identity: { runId: string; git: BenchRun['git']; startedAt: Date; ledgerCount: number },
): BenchRun {
  const { options } = prepared;
  const bootstrap = {
    seed: options.seed ?? DEFAULT_BOOTSTRAP_SEED,
    resamples: options.resamples ?? DEFAULT_BOOTSTRAP_RESAMPLES,
    confidence: 0.95,
  };
  const configurations = prepared.configurations.map(
    ({ variant: _variant, ...configuration }) => configuration,
  );
  const cases = [...prepared.cases.keys()].sort(compareCodePoints);
  return {
    run_id: identity.runId,
    status: 'running',
    reason: null,
    started_at: identity.startedAt.toISOString(),
    finished_at: null,
    pid: process.pid,
    host: hostname(),
    git: identity.git,
    pipeline_run: options.pipelineRun,
    settings_digest: hashCanonicalJson({
      configurations: configurations.map((c) => ({ name: c.name, settings: c.settings })),
      bootstrap,
      split: prepared.split,
      cases,
      systems: prepared.systems,
      reference: prepared.reference,
      // Absent unless on, so the digest of a run without design is what it always was.
      ...(options.design ? { design: true } : {}),
    }),
    split: prepared.split,
    shard: options.shard ? shardLabel(options.shard) : null,
    cases,
    test_ledger_count: identity.ledgerCount,
    systems: prepared.systems,
    reference: prepared.reference,
    reference_from: prepared.referenceFrom,
    config_spec: prepared.plan.spec,
    factors: prepared.plan.factors,
    left_out_factors: prepared.leftOut,
    shapley_metric: options.shapleyMetric ?? 'coverage',
    design: options.design === true,
    configurations,
    judges: prepared.judges,
    bootstrap,
    diag_below: options.diagBelow ?? DEFAULT_DIAG_BELOW,
    tau_a: baseEvaluationSettings(prepared.runJudge, options.tauA).tau_a,
    digests: { probe_banks: {}, weights: {}, decks: {}, rubric_instances: {} },
    judge_calls: null,
    rows: { total: 0, failed: 0 },
    input_failures: prepared.inputFailures,
  };
}

/** Content digests of the inputs the rows used, from their evaluations' run manifests. */
async function inputDigests(
  prepared: PreparedBench,
  rows: readonly BenchRow[],
): Promise<BenchRun['digests']> {
  const digests: BenchRun['digests'] = { probe_banks: {}, weights: {}, decks: {}, rubric_instances: {} };
  const seen = new Set<string>();
  for (const row of rows) {
    if (row.error !== null || row.evaluation_dir === null || seen.has(row.evaluation_dir)) continue;
    seen.add(row.evaluation_dir);
    const manifest = await readJson(
      join(prepared.options.dataDir, row.evaluation_dir, EVALUATION_FILES.manifest),
      runManifestSchema,
    );
    for (const input of manifest.inputs) {
      const path = input.path.split(sep).join('/');
      if (input.role === 'probes') digests.probe_banks[row.case] = input.sha256;
      if (input.role === 'weights') digests.weights[path] = input.sha256;
      if (input.role === 'deck') digests.decks[path] = input.sha256;
    }
  }
  for (const { benchCase } of prepared.cases.values())
    if (benchCase.rubric && benchCase.rubricDigest)
      digests.rubric_instances[benchCase.case] = benchCase.rubricDigest;
  return digests;
}

async function evaluateConfigurations(
  prepared: PreparedBench,
  writer: JsonlWriter<typeof benchRowSchema>,
  rows: BenchRow[],
): Promise<void> {
  const { options, layout } = prepared;
  const progress = options.progress ?? silentProgress;
  const client = {
    ...(options.env ? { env: options.env } : {}),
    ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}),
    ...(options.noCache !== undefined ? { noCache: options.noCache } : {}),
    ...(options.refresh !== undefined ? { refresh: options.refresh } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.prices ? { prices: options.prices } : {}),
  };
  const { fill, concurrency } = fillClientFor(prepared, client);
  // Only the run's own record store is filled; a configuration with another judge answers as it always does.
  const fillFor = (judge: string) => (fill && judge === prepared.runJudge ? { fill } : {});
  const scorers = new Map<string, RubricScorer>();
  const scorerFor = (judge: string) => {
    let scorer = scorers.get(judge);
    if (!scorer) {
      const { client: llm } = createJudge(judge, {
        ...client,
        ...fillFor(judge),
        stage: 'rubric',
        ledgerFile: layout.usageLedgerFile(options.pipelineRun),
      });
      scorer = new RubricScorer(llm, judge);
      scorers.set(judge, scorer);
    }
    return scorer;
  };
  const designer = options.design
    ? new DesignScorer({
        renderStore: new SlideRenderStore(layout.slideRendersDir(options.pipelineRun)),
        ...(options.env ? { env: options.env } : {}),
      })
    : null;
  const roots = [
    ...new Set([
      evaluationsRootFor(layout, options.pipelineRun),
      ...prepared.configurations.map((c) => evaluationsRootFor(layout, options.pipelineRun, c.variant)),
    ]),
  ];
  const donors = (job: EvaluationJob) => {
    const audiences = prepared.cases.get(job.caseLabel)?.benchCase.source?.metadata.valid_audiences ?? [];
    return roots.flatMap((root) =>
      audiences.map((audience) => join(root, job.system, job.condition, audience, job.caseLabel)),
    );
  };
  const emit = async (row: BenchRow) => {
    rows.push(await writer.write(row));
  };
  progress.start('bench', prepared.jobCount);
  for (const configuration of prepared.configurations) {
    const { settings } = configuration;
    const contextFor = (caseLabel: string): RowContext => {
      const entry = prepared.cases.get(caseLabel)!;
      return {
        dataDir: options.dataDir,
        configuration: configuration.name,
        tauA: settings.tau_a,
        benchCase: entry.benchCase,
        split: entry.split,
      };
    };
    for (const failure of prepared.discoveryFailures) {
      const parts = relative(layout.decksRoot(options.pipelineRun), failure.where).split(sep);
      await emit(
        discoveryErrorRow(
          {
            system: parts[0]!,
            condition: parts[1]!,
            audience: parts[2]!,
            caseLabel: parts[3]!,
            deck: parts.length > 4 ? relative(options.dataDir, failure.where).split(sep).join('/') : null,
          },
          contextFor(parts[3]!),
          failure.error.message,
        ),
      );
    }
    for (const system of prepared.systems) {
      const [generator, condition] = system.split('__') as [string, string];
      await runEvaluation({
        dataDir: options.dataDir,
        run: options.pipelineRun,
        judge: settings.judge,
        tauA: settings.tau_a,
        batchSize: settings.batch_size,
        claims: settings.claim_settings,
        imageModeWordsPerSlide: settings.image_mode_words_per_slide,
        judgeInput: settings.judge_input,
        correctness: settings.claims === 'on',
        weightsK: settings.weight_k,
        ...(configuration.variant === undefined ? {} : { variant: configuration.variant }),
        filters: { systems: [generator], conditions: [condition], cases: [...prepared.cases.keys()] },
        ...client,
        ...fillFor(settings.judge),
        ...(concurrency !== undefined && fillFor(settings.judge).fill
          ? { concurrency, jobConcurrency: concurrency }
          : {}),
        ...(options.readDeck ? { readDeck: options.readDeck } : {}),
        ...(options.renderSlides ? { renderSlides: options.renderSlides } : {}),
        scoreDonors: donors,
        onResult: async (result) => {
          const context = contextFor(result.job.caseLabel);
          const instance = context.benchCase.rubric;
          await emit(
            await benchRowFor(result, context, {
              rubric: async () =>
                instance ? scorerFor(settings.judge).score(instance, result.job.deckFile) : null,
              design: async () => (designer ? designer.score(result.job.deckFile) : null),
            }),
          );
          progress.tick(
            1,
            `${configuration.name} ${system} ${result.job.audience}/${result.job.caseLabel}: ${result.outcome}`,
          );
        },
      });
    }
  }
  progress.finish(`${rows.filter((row) => row.error === null).length}/${rows.length} rows done`);
}

/**
 * The client that fills the run's record store (`--fill`), logged to the pipeline run's ledger, and
 * with a batch the concurrency that lets one batch collect a whole evaluation.
 */
function fillClientFor(
  prepared: PreparedBench,
  client: BenchClientSettings,
): { fill: LlmClient | undefined; concurrency: number | undefined } {
  const { options, layout } = prepared;
  if (!options.fill) return { fill: undefined, concurrency: undefined };
  // The filling judge's provider limits come from config `providers` (the run's own judge is a store).
  const { limits: _storeLimits, ...shared } = client;
  const fillOptions: CreateLlmClientOptions = {
    ...shared,
    ...(options.providers ? { providers: options.providers } : {}),
    ledgerFile: layout.usageLedgerFile(options.pipelineRun),
    ...(options.fill.batch ? { batch: options.fill.batch } : {}),
  };
  return {
    fill: createLlmClient(options.fill.judge, fillOptions),
    concurrency: options.fill.batch ? preferredConcurrencyFor(options.fill.judge, fillOptions) : undefined,
  };
}

/**
 * `xsb bench run`: evaluates every selected system on the cases of a split under each configuration,
 * through @xsb/eval (configurations with equal settings share one evaluation folder; score rows of the
 * same deck, bank and batch size are shared across audiences and folders), and writes a new run folder
 * `<data>/bench/runs/<UTC stamp>-<short sha>/`: `run.json` (`running` → `done`/`failed`),
 * `per_row.jsonl` (flushed row by row), `summary.json` and `report.md`. Opening the test split appends
 * to the test ledger before the first judge call. A failed row is recorded and counted; the caller
 * sets exit code 1.
 */
export async function runBench(options: RunBenchOptions): Promise<BenchRunResult> {
  const bench = new BenchLayout(options.dataDir);
  await markInterruptedRuns(bench);
  const prepared = await prepareBench(options);
  for (const line of benchNotices(prepared)) options.onNotice?.(line);
  const now = options.now ?? (() => new Date());
  const git = readGitState(options.gitDirs ?? [options.dataDir, process.cwd()]);
  const startedAt = now();
  const { runId, dir } = await createRunDir(
    bench,
    git.sha,
    startedAt,
    options.shard ? shardFileTag(options.shard) : undefined,
  );
  if (prepared.split !== 'dev')
    await appendTestLedger(bench.testLedgerFile(), {
      time: startedAt.toISOString(),
      run_id: runId,
      split: prepared.split,
      configurations: prepared.configurations.map((c) => c.name),
      git,
    });
  let run = runRecordOf(prepared, {
    runId,
    git,
    startedAt,
    ledgerCount: await countTestLedger(bench.testLedgerFile()),
  });
  await writeRunRecord(bench, run);
  const ledgerFile = prepared.layout.usageLedgerFile(options.pipelineRun);
  const before = await countEvaluationCalls(ledgerFile);
  const rows: BenchRow[] = [];
  try {
    const writer = await JsonlWriter.open(bench.runFile(runId, 'rows'), benchRowSchema);
    try {
      await evaluateConfigurations(prepared, writer, rows);
    } finally {
      await writer.close();
    }
    const after = await countEvaluationCalls(ledgerFile, before.lines);
    run = {
      ...run,
      digests: await inputDigests(prepared, rows),
      judge_calls: await countDistinctWork(options.dataDir, rows, after.evalCalls),
      rows: { total: rows.length, failed: rows.filter((row) => row.error !== null).length },
    };
    const summary = summarizeBenchRun(rows, run);
    await writeJson(bench.runFile(runId, 'summary'), benchSummarySchema, summary);
    run = { ...run, status: 'done', finished_at: now().toISOString() };
    await writeRunRecord(bench, run);
    const report = renderBenchReport(summary, run);
    await writeFileAtomic(bench.runFile(runId, 'report'), report);
    return { runId, dir, run, summary, rows, report, ledgerLines: after.lines - before.lines };
  } catch (error) {
    await writeRunRecord(bench, {
      ...run,
      status: 'failed',
      reason: describeError(error),
      finished_at: now().toISOString(),
    });
    throw error;
  }
}

import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import {
  assertSafePathPart,
  compareCodePoints,
  isCaseInShard,
  isXsbError,
  mapWithConcurrency,
  type ProgressReporter,
  readJson,
  type Shard,
  shardFileTag,
  silentProgress,
  writeJson,
} from '@xsb/core';
import { readDeck } from '@xsb/decks';
import type { Judge, JudgeDescription } from '@xsb/llm';
import { DEFAULT_PARSER } from './boxed-verdict';
import { countPlannedItems, type EvaluateDeckOptions, evaluateDeck } from './evaluate-deck';
import { findPresentBenchCases, findPresentBenchDeck, loadPresentBenchCase } from './load-presentbench-case';
import {
  isPresentBenchResultsDeck,
  type PresentBenchFiles,
  type PresentBenchTarget,
  presentBenchModelName,
  writePresentBenchFiles,
} from './presentbench-files';
import { readMaterials } from './read-materials';
import { loadRubricInstance, type RubricInstance } from './rubric-instance';
import {
  evaluationInputHash,
  type RubricItemListOptions,
  type RubricItemUnit,
  rubricItemWorkList,
} from './rubric-item-work-list';
import {
  type RubricEvaluation,
  type RubricRunRow,
  type RubricRunSummary,
  rubricEvaluationSchema,
  rubricRunSummarySchema,
} from './schemas/rubric-evaluation';
import { RUBRIC_CATEGORIES } from './schemas/rubric-instance';
import { type ErrorPolicy, meansByCategory } from './score-evaluation';
import { scoreEvaluation } from './score-report';

export interface InstanceEntry {
  /** Path relative to the instances root (PresentBench case path, or the instance file's folder). */
  relativePath: string;
  load: () => Promise<RubricInstance>;
}

const INSTANCE_FILE = /^instance\.(ya?ml|json)$/i;

/**
 * Instances under a folder: PresentBench leaf cases (`generation_task/judge_prompt.json`) when there
 * are any, else every `instance.yaml|yml|json` in xsb's format.
 */
export async function findInstances(root: string): Promise<InstanceEntry[]> {
  const base = resolve(root);
  const toRelative = (dir: string): string => relative(base, dir).split(sep).join('/') || '.';
  const cases = await findPresentBenchCases(base);
  if (cases.length > 0) {
    return cases.map((dir) => ({
      relativePath: toRelative(dir),
      load: () => loadPresentBenchCase(base, dir),
    }));
  }
  const files: string[] = [];
  async function walk(dir: string, depth: number): Promise<void> {
    if (depth > 6) return;
    for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
      compareCodePoints(a.name, b.name),
    )) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path, depth + 1);
      else if (INSTANCE_FILE.test(entry.name)) files.push(path);
    }
  }
  await walk(base, 0);
  return files.map((file) => ({
    relativePath: toRelative(dirname(file)),
    load: () => loadRubricInstance(file),
  }));
}

/**
 * Every instance under a folder keyed by its `id` (the case label, for the instances of a data folder's
 * `rubric/`); an absent folder has none. The meta-evaluation and a study's alignment read instances this way.
 */
export async function loadInstancesById(root: string): Promise<Map<string, RubricInstance>> {
  const instances = new Map<string, RubricInstance>();
  for (const entry of existsSync(root) ? await findInstances(root) : []) {
    const instance = await entry.load();
    instances.set(instance.id, instance);
  }
  return instances;
}

/** A judge id as a file-name part: `anthropic:claude-x` → `anthropic_claude-x`. */
export function judgeSlug(judgeId: string): string {
  const slug = judgeId.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '');
  return assertSafePathPart(slug || 'judge', 'judge id');
}

export interface EvaluationFiles {
  evaluation: string;
  /** Where the PresentBench result (and score) YAML go. */
  presentbench: PresentBenchTarget;
}

/**
 * Outputs of one deck's evaluation (README "Files written"): named after the deck and the judge, so two
 * decks in one folder never share files and verdicts of different judges never mix.
 */
export function evaluationFilesFor(deckPath: string, judgeId: string): EvaluationFiles {
  const stem = join(dirname(deckPath), `${basename(deckPath)}.xsb_rubric_${judgeSlug(judgeId)}`);
  return {
    evaluation: `${stem}.json`,
    presentbench: isPresentBenchResultsDeck(deckPath)
      ? { kind: 'results-dir', dir: dirname(deckPath), model: presentBenchModelName(judgeId) }
      : { kind: 'file', file: `${stem}_presentbench.yaml` },
  };
}

/** Writes the evaluation and its PresentBench files (all atomically). */
async function writeEvaluation(
  evaluation: RubricEvaluation,
  files: EvaluationFiles,
): Promise<PresentBenchFiles> {
  await writeJson(files.evaluation, rubricEvaluationSchema, evaluation);
  return writePresentBenchFiles(evaluation, files.presentbench, {
    ...(evaluation.weights ? { weights: evaluation.weights } : {}),
  });
}

export interface EvaluateOrReuseResult {
  evaluation: RubricEvaluation;
  /** `reused`: nothing judged; `resumed`: only unanswered items judged again; `evaluated`: all. */
  outcome: 'reused' | 'resumed' | 'evaluated';
  presentbench: PresentBenchFiles;
}

/** The stored evaluation whose input hash matches these options, or undefined (none, unreadable, other inputs, `force`). */
export async function matchingStoredEvaluation(
  options: RubricItemListOptions,
  files: EvaluationFiles,
  force = false,
): Promise<RubricEvaluation | undefined> {
  if (force || !existsSync(files.evaluation)) return undefined;
  const stored = await readJson(files.evaluation, rubricEvaluationSchema).catch(() => undefined);
  return stored?.input_hash === evaluationInputHash(options) ? stored : undefined;
}

/**
 * The matching stored evaluation, else a fresh one. Like PresentBench's resume, a matching evaluation
 * with unanswered (`error`) items keeps its answered items and judges only those again.
 */
export async function evaluateOrReuse(
  options: EvaluateDeckOptions,
  files: EvaluationFiles,
  force = false,
): Promise<EvaluateOrReuseResult> {
  const previous = await matchingStoredEvaluation(options, files, force);
  const unanswered = previous?.items.some((item) => item.verdict === 'error') ?? false;
  if (previous && (!unanswered || options.judge.kind === 'offline')) {
    for (const item of previous.items) options.onItemDone?.(item);
    const presentbench = await writePresentBenchFiles(previous, files.presentbench, {
      ...(previous.weights ? { weights: previous.weights } : {}),
    });
    return { evaluation: previous, outcome: 'reused', presentbench };
  }
  const evaluation = await evaluateDeck(previous ? { ...options, resumeFrom: previous } : options);
  const presentbench = await writeEvaluation(evaluation, files);
  return { evaluation, outcome: previous ? 'resumed' : 'evaluated', presentbench };
}

/**
 * Decks a batch run judges at once by default: a batch holds every collected prompt until it is
 * submitted, ~12 MB a deck with PresentBench-size materials (docs/scale.md), so 16 decks keep a run
 * near 430 MB at any size, in batches of up to 16 decks' items.
 */
export const BATCH_INSTANCE_CONCURRENCY = 16;

export interface RunRubricOptions
  extends Pick<
    EvaluateDeckOptions,
    | 'maxAttempts'
    | 'concurrency'
    | 'warmPrefixCache'
    | 'standIn'
    | 'layoutOptions'
    | 'slideCountOn'
    | 'parser'
  > {
  instancesDir: string;
  resultsDir: string;
  /** The judge of every deck; its id names the files and the summary. */
  judge: Judge;
  force?: boolean;
  errorPolicy?: ErrorPolicy;
  /** Send PDF decks to the judge as documents too (see `EvaluateDeckOptions.deckPdf`). */
  attachPdf?: boolean;
  progress?: ProgressReporter;
  /**
   * Decks evaluated at once (default 1: one after another, each with `concurrency` items in flight).
   * More keep the provider busy while a deck's first item of each tier runs alone, and let a batch
   * client collect the items of many decks into one batch (`--batch` raises it). Rows and files are
   * the same at any value: rows keep instance order whatever finishes first.
   */
  instanceConcurrency?: number;
  /**
   * Only the instances of this shard (`md5(instance id) % n == i`, core's rule; an instance that cannot
   * be read shards by its path). The summary is then `xsb_rubric_summary_<judge>.shard-i-of-n.json`,
   * holding this shard's rows and every instance's id in order, so `xsb merge` rebuilds the unsharded
   * summary from the n shard summaries ({@link rubricSummaryCombiner}).
   */
  shard?: Shard;
  /** The system the decks are from (`--system`), recorded in the summary so reports name it so. */
  system?: string;
}

/** The summary of a rubric run over rows in instance order (one rule for a run and for a merge of shards). */
export function summarizeRubricRun(
  rows: RubricRunRow[],
  judgeId: string,
  parser: RubricRunSummary['parser'],
  system?: string,
): RubricRunSummary {
  const paper = meansByCategory(rows, (row) => row.paper_total_percent);
  const weighted = meansByCategory(rows, (row) => row.presentbench_total_percent);
  return {
    judge: judgeId,
    ...(system ? { system } : {}),
    parser,
    rows,
    overall: {
      count: rows.length,
      paper_mean_percent: paper.overall.mean,
      presentbench_mean_percent: weighted.overall.mean,
    },
    categories: Object.fromEntries(
      Object.keys(paper.categories).map((category) => [
        category,
        {
          count: rows.filter((row) => row.category === category).length,
          paper_mean_percent: paper.categories[category]?.mean ?? null,
          presentbench_mean_percent: weighted.categories[category]?.mean ?? null,
        },
      ]),
    ),
  };
}

/** `xsb_rubric_summary_<judge>.json`, or `….shard-i-of-n.json` for a shard. */
export function rubricSummaryFileFor(resultsDir: string, judgeId: string, shard?: Shard): string {
  const tag = shard ? `.${shardFileTag(shard)}` : '';
  return join(resultsDir, `xsb_rubric_summary_${judgeSlug(judgeId)}${tag}.json`);
}

/** The id an instance shards by: its own id, or its path when it cannot be read. */
async function instanceIdOf(entry: InstanceEntry): Promise<string> {
  try {
    return (await entry.load()).id;
  } catch (error) {
    if (!isXsbError(error) || error.kind !== 'input') throw error;
    return entry.relativePath;
  }
}

/** Every instance's deck of a results tree through evaluateOrReuse; a failing case is a `failed` row, the run goes on. */
export async function runRubric(
  options: RunRubricOptions,
): Promise<{ summary: RubricRunSummary; summaryFile: string }> {
  const all = await findInstances(options.instancesDir);
  const ids = options.shard ? await Promise.all(all.map(instanceIdOf)) : [];
  const entries = options.shard ? all.filter((_, index) => isCaseInShard(ids[index]!, options.shard)) : all;
  const progress = options.progress ?? silentProgress;
  const planned = await plannedItemCounts(entries, options.resultsDir);
  progress.start(
    `rubric run (checklist items of ${entries.length} case${entries.length === 1 ? '' : 's'})`,
    planned.reduce((sum, count) => sum + count, 0),
  );
  const rows = await mapWithConcurrency(entries, options.instanceConcurrency ?? 1, async (entry, index) => {
    let done = 0;
    const row = await runOne(entry, options, () => {
      done += 1;
      progress.tick(1, entry.relativePath);
    });
    // A case that failed part-way (or differs from the plan) accounts for the rest of its items here.
    const left = (planned[index] ?? 0) - done;
    if (left > 0) progress.tick(left, `${entry.relativePath} (${row.status})`);
    return row;
  });
  progress.finish();
  const summary: RubricRunSummary = {
    ...summarizeRubricRun(rows, options.judge.id, options.parser ?? DEFAULT_PARSER, options.system),
    ...(options.shard
      ? { shard: { index: options.shard.index, count: options.shard.count, instances: ids } }
      : {}),
  };
  const summaryFile = rubricSummaryFileFor(options.resultsDir, options.judge.id, options.shard);
  await writeJson(summaryFile, rubricRunSummarySchema, summary);
  return { summary, summaryFile };
}

/**
 * Checklist items each case will have (0 for a case that cannot load or has no deck), for a progress
 * line over items rather than cases. Reads each deck once more; judging dominates the run time.
 */
async function plannedItemCounts(entries: InstanceEntry[], resultsDir: string): Promise<number[]> {
  const counts: number[] = [];
  for (const entry of entries) {
    try {
      const instance = await entry.load();
      const deckPath = findPresentBenchDeck(resultsDir, entry.relativePath);
      const slides = deckPath ? (await readDeck(deckPath)).slides.length : 0;
      counts.push(deckPath ? countPlannedItems(instance, slides) : 0);
    } catch (error) {
      if (!isXsbError(error) || error.kind !== 'input') throw error;
      counts.push(0);
    }
  }
  return counts;
}

/** A row that records why an instance was not evaluated. */
function failedRow(
  instanceId: string,
  message: string,
  category: RubricInstance['category'] | null,
): RubricRunRow {
  return {
    instance_id: instanceId,
    category,
    deck_path: null,
    status: 'failed',
    error: message,
    paper_total_percent: null,
    presentbench_total_percent: null,
    error_count: 0,
    not_judged_count: 0,
    presentbench_result: null,
    presentbench_score: null,
  };
}

/** The instance of an entry, or the failed row of an instance that cannot be read (an input error). */
async function loadEntry(entry: InstanceEntry): Promise<RubricInstance | RubricRunRow> {
  try {
    return await entry.load();
  } catch (error) {
    if (!isXsbError(error) || error.kind !== 'input') throw error;
    const domain = entry.relativePath.split('/')[0] as RubricInstance['category'];
    return failedRow(entry.relativePath, error.message, RUBRIC_CATEGORIES.includes(domain) ? domain : null);
  }
}

/** The settings of a run that decide one deck's items (what `xsb plan rubric` is given as well). */
type DeckSettings = Pick<
  RunRubricOptions,
  'attachPdf' | 'parser' | 'maxAttempts' | 'warmPrefixCache' | 'standIn' | 'slideCountOn' | 'layoutOptions'
>;

/** What decides one deck's items: the deck, the instance's materials and the run's settings. */
async function deckItemOptions(
  instance: RubricInstance,
  deckPath: string,
  options: DeckSettings,
): Promise<Omit<RubricItemListOptions, 'judge'>> {
  const deck = await readDeck(deckPath);
  return {
    instance,
    deck,
    materials: await readMaterials(instance.materials),
    ...(options.attachPdf && deck.format === 'pdf'
      ? { deckPdf: new Uint8Array(await readFile(deckPath)) }
      : {}),
    ...(options.parser ? { parser: options.parser } : {}),
    ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
    ...(options.warmPrefixCache === false ? { warmPrefixCache: false } : {}),
    ...(options.standIn ? { standIn: options.standIn } : {}),
    ...(options.slideCountOn ? { slideCountOn: options.slideCountOn } : {}),
    ...(options.layoutOptions ? { layoutOptions: options.layoutOptions } : {}),
  };
}

/**
 * The work list `evaluateOrReuse` runs for one deck (resumed from a current stored evaluation), for
 * `xsb plan rubric` to price: the run and the plan read the deck the same way.
 */
export async function deckItemWorkList(
  instance: RubricInstance,
  deckPath: string,
  options: DeckSettings & { judge: JudgeDescription; force?: boolean },
): Promise<RubricItemUnit[]> {
  const listOptions = { ...(await deckItemOptions(instance, deckPath, options)), judge: options.judge };
  const files = evaluationFilesFor(deckPath, options.judge.id);
  const previous = await matchingStoredEvaluation(listOptions, files, options.force);
  return rubricItemWorkList(previous ? { ...listOptions, resumeFrom: previous } : listOptions);
}

/** The row of an evaluated (or reused) deck: both totals under the run's error policy. */
function evaluatedRow(
  instance: RubricInstance,
  deckPath: string,
  result: EvaluateOrReuseResult,
  errorPolicy: ErrorPolicy | undefined,
): RubricRunRow {
  const scores = scoreEvaluation(result.evaluation, { weights: instance.weights, errorPolicy });
  return {
    instance_id: instance.id,
    category: instance.category,
    deck_path: deckPath,
    status: result.outcome === 'reused' ? 'skipped' : 'evaluated',
    error: null,
    paper_total_percent: scores.paper.total_percent,
    presentbench_total_percent: scores.presentbench.total_percent,
    error_count: scores.paper.error_count,
    not_judged_count: scores.paper.not_judged_count,
    presentbench_result: result.presentbench.result,
    presentbench_score: result.presentbench.score,
  };
}

async function runOne(
  entry: InstanceEntry,
  options: RunRubricOptions,
  onItemDone: () => void,
): Promise<RubricRunRow> {
  const instance = await loadEntry(entry);
  if (!('checklists' in instance)) return instance;
  const deckPath = findPresentBenchDeck(options.resultsDir, entry.relativePath);
  if (!deckPath) {
    return {
      ...failedRow(instance.id, 'no slides.pdf or slides.pptx', instance.category),
      status: 'missing_deck',
    };
  }
  const files = evaluationFilesFor(deckPath, options.judge.id);
  try {
    const evaluateOptions = await deckItemOptions(instance, deckPath, options);
    const result = await evaluateOrReuse(
      { ...evaluateOptions, judge: options.judge, concurrency: options.concurrency, onItemDone },
      files,
      options.force,
    );
    return evaluatedRow(instance, deckPath, result, options.errorPolicy);
  } catch (error) {
    if (!isXsbError(error) || error.kind !== 'input') throw error;
    return { ...failedRow(instance.id, error.message, instance.category), deck_path: deckPath };
  }
}

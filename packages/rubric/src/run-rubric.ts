import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import {
  assertSafePathPart,
  compareCodePoints,
  isXsbError,
  type ProgressReporter,
  RUBRIC_CATEGORIES,
  type RubricEvaluation,
  type RubricRunRow,
  type RubricRunSummary,
  readJson,
  rubricEvaluationSchema,
  rubricRunSummarySchema,
  silentProgress,
  writeFileAtomic,
  writeJson,
} from '@xsb/core';
import { readDeck } from '@xsb/decks';
import type { LlmClient } from '@xsb/llm';
import { type EvaluateDeckOptions, evaluateDeck, evaluationInputHash } from './evaluate-deck';
import { findPresentBenchCases, findPresentBenchDeck, loadPresentBenchCase } from './load-presentbench-case';
import { stringifyPresentBenchResult, toPresentBenchResult } from './presentbench-result';
import { readMaterials } from './read-materials';
import { loadRubricInstance, type RubricInstance } from './rubric-instance';
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

/** A judge id as a file-name part: `anthropic:claude-x` → `anthropic_claude-x`. */
export function judgeSlug(judgeId: string): string {
  const slug = judgeId.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '');
  return assertSafePathPart(slug || 'judge', 'judge id');
}

export interface EvaluationFiles {
  evaluation: string;
  presentbenchResult: string;
}

/**
 * Outputs beside the deck, named after it (two decks in one folder never share files) and after the
 * judge (verdicts of different judges never mix): `<deck file>.xsb_rubric_<judge>.json` and
 * `<deck file>.xsb_rubric_<judge>_presentbench.yaml`.
 */
export function evaluationFilesFor(deckPath: string, judgeId: string): EvaluationFiles {
  const stem = join(dirname(deckPath), `${basename(deckPath)}.xsb_rubric_${judgeSlug(judgeId)}`);
  return { evaluation: `${stem}.json`, presentbenchResult: `${stem}_presentbench.yaml` };
}

/** Writes the evaluation and its PresentBench-layout result YAML (both atomically). */
async function writeEvaluation(evaluation: RubricEvaluation, files: EvaluationFiles): Promise<void> {
  await writeJson(files.evaluation, rubricEvaluationSchema, evaluation);
  await writeFileAtomic(
    files.presentbenchResult,
    stringifyPresentBenchResult(toPresentBenchResult(evaluation)),
  );
}

/**
 * The evaluation `files` already hold when its input hash matches (same instance, deck, materials,
 * judge and options), unless `force`; else a fresh evaluation, written to `files`. An unreadable
 * previous file is simply evaluated again.
 */
export async function evaluateOrReuse(
  options: EvaluateDeckOptions,
  files: EvaluationFiles,
  force = false,
): Promise<{ evaluation: RubricEvaluation; reused: boolean }> {
  if (!force && existsSync(files.evaluation)) {
    const previous = await readJson(files.evaluation, rubricEvaluationSchema).catch(() => undefined);
    if (previous?.input_hash === evaluationInputHash(options)) return { evaluation: previous, reused: true };
  }
  const evaluation = await evaluateDeck(options);
  await writeEvaluation(evaluation, files);
  return { evaluation, reused: false };
}

export interface RunRubricOptions
  extends Pick<
    EvaluateDeckOptions,
    'maxAttempts' | 'concurrency' | 'standIn' | 'layoutOptions' | 'slideCountOn'
  > {
  instancesDir: string;
  resultsDir: string;
  client: LlmClient | null;
  judgeId: string;
  force?: boolean;
  errorPolicy?: ErrorPolicy;
  /** Send PDF decks to the judge as documents too (see `EvaluateDeckOptions.deckPdf`). */
  attachPdf?: boolean;
  progress?: ProgressReporter;
}

/**
 * Evaluates every instance's deck found at `<results>/<case>/generation_task/results/slides.pdf|pptx`.
 * A finished evaluation with the same input hash is reused unless `force`; a failing case becomes a
 * `failed` row and the run goes on. Writes `xsb_rubric_summary_<judge>.json` into the results folder.
 */
export async function runRubric(
  options: RunRubricOptions,
): Promise<{ summary: RubricRunSummary; summaryFile: string }> {
  const entries = await findInstances(options.instancesDir);
  const rows: RubricRunRow[] = [];
  const progress = options.progress ?? silentProgress;
  progress.start('rubric run', entries.length);
  for (const entry of entries) {
    rows.push(await runOne(entry, options));
    progress.tick();
  }
  progress.finish();
  const paper = meansByCategory(rows, (row) => row.paper_total_percent);
  const weighted = meansByCategory(rows, (row) => row.presentbench_total_percent);
  const summary: RubricRunSummary = {
    judge: options.judgeId,
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
  const summaryFile = join(options.resultsDir, `xsb_rubric_summary_${judgeSlug(options.judgeId)}.json`);
  await writeJson(summaryFile, rubricRunSummarySchema, summary);
  return { summary, summaryFile };
}

async function runOne(entry: InstanceEntry, options: RunRubricOptions): Promise<RubricRunRow> {
  let instance: RubricInstance;
  const failed = (message: string, category: RubricInstance['category'] | null): RubricRunRow => ({
    instance_id: entry.relativePath,
    category,
    deck_path: null,
    status: 'failed',
    error: message,
    paper_total_percent: null,
    presentbench_total_percent: null,
    error_count: 0,
    not_judged_count: 0,
  });
  try {
    instance = await entry.load();
  } catch (error) {
    if (isXsbError(error) && error.kind === 'input') {
      const domain = entry.relativePath.split('/')[0] as RubricInstance['category'];
      return failed(error.message, RUBRIC_CATEGORIES.includes(domain) ? domain : null);
    }
    throw error;
  }
  const deckPath = findPresentBenchDeck(options.resultsDir, entry.relativePath);
  if (!deckPath) {
    return {
      ...failed('no slides.pdf or slides.pptx', instance.category),
      instance_id: instance.id,
      status: 'missing_deck',
    };
  }
  const files = evaluationFilesFor(deckPath, options.judgeId);
  try {
    const deck = await readDeck(deckPath);
    const materials = await readMaterials(instance.materials);
    const evaluateOptions: EvaluateDeckOptions = {
      instance,
      deck,
      materials,
      ...(options.attachPdf && deck.format === 'pdf'
        ? { deckPdf: new Uint8Array(await readFile(deckPath)) }
        : {}),
      client: options.client,
      judgeId: options.judgeId,
      maxAttempts: options.maxAttempts,
      concurrency: options.concurrency,
      standIn: options.standIn,
      slideCountOn: options.slideCountOn,
      layoutOptions: options.layoutOptions,
    };
    const { evaluation, reused } = await evaluateOrReuse(evaluateOptions, files, options.force);
    const status: RubricRunRow['status'] = reused ? 'skipped' : 'evaluated';
    const scores = scoreEvaluation(evaluation, {
      weights: instance.weights,
      errorPolicy: options.errorPolicy,
    });
    return {
      instance_id: instance.id,
      category: instance.category,
      deck_path: deckPath,
      status,
      error: null,
      paper_total_percent: scores.paper.total_percent,
      presentbench_total_percent: scores.presentbench.total_percent,
      error_count: scores.paper.error_count,
      not_judged_count: scores.paper.not_judged_count,
    };
  } catch (error) {
    if (isXsbError(error) && error.kind === 'input') {
      return { ...failed(error.message, instance.category), instance_id: instance.id, deck_path: deckPath };
    }
    throw error;
  }
}

import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { validateRecord, writeFileAtomic } from '@xsb/core';
import {
  type ErrorExport,
  isResultAnswered,
  stringifyPresentBenchResult,
  toPresentBenchResult,
} from './presentbench-result';
import { type PresentBenchScoreTree, scorePresentBenchResult } from './presentbench-scoring';
import { pythonFloatRepr } from './python-values';
import type { RubricEvaluation } from './schemas/rubric-evaluation';
import type { RubricClassWeights } from './schemas/rubric-instance';
import { presentBenchResultFileSchema, presentBenchScoreFileSchema } from './schemas/rubric-presentbench';

const INVALID_FILENAME_CHARS = /[<>:"/\\|?*\x00-\x1f]+/g;

/** Python's `s.strip(chars)`. */
function stripChars(text: string, chars: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && chars.includes(text[start] as string)) start += 1;
  while (end > start && chars.includes(text[end - 1] as string)) end -= 1;
  return text.slice(start, end);
}

/**
 * PresentBench's `model_filename_prefix` (utils/score_utils.py, main): the last path segment of the
 * model name, runs of characters invalid in file names replaced by `-`, spaces, dots and dashes
 * trimmed; `model` when nothing is left.
 */
export function modelFilenamePrefix(model: string): string {
  const base = model.replace(/\\/g, '/').split('/').at(-1)?.trim() ?? '';
  return stripChars(base.replace(INVALID_FILENAME_CHARS, '-'), ' .-') || 'model';
}

/**
 * The name PresentBench's `--model` would carry for our judge: the model of `anthropic:<model>` /
 * `openai:<model>`, else the whole judge id (`replay:…`, `lexical`).
 */
export function presentBenchModelName(judgeId: string): string {
  const match = /^(?:anthropic|openai):(.+)$/.exec(judgeId.trim());
  return (match?.[1] ?? judgeId).trim();
}

/** judge.py's `datetime.now().strftime("%Y-%m-%d_%H-%M-%S")` (local time). */
export function presentBenchTimestamp(date: Date): string {
  const two = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}_${two(date.getHours())}-${two(date.getMinutes())}-${two(date.getSeconds())}`;
}

export const PRESENTBENCH_TIMESTAMP = /^\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}$/;

/** judge.py's score file for a result file: `name + '_score' + ext`. */
export function scoreFileFor(resultFile: string): string {
  const dot = resultFile.lastIndexOf('.');
  const slash = Math.max(resultFile.lastIndexOf('/'), resultFile.lastIndexOf('\\'));
  return dot > slash ? `${resultFile.slice(0, dot)}_score${resultFile.slice(dot)}` : `${resultFile}_score`;
}

const COUNT_FIELDS = new Set(['yes_count', 'valid_count']);
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/**
 * The score tree as scoring.py's `yaml.dump(..., default_flow_style=False, sort_keys=False)` writes
 * it: block mappings indented by two, floats as Python's `repr` (`70.0`, `66.66666666666667`),
 * counts as ints, an empty mapping as `{}`.
 */
export function dumpScoreTreeYaml(tree: PresentBenchScoreTree): string {
  const lines: string[] = [];
  const key = (name: string): string => (PLAIN_KEY.test(name) ? name : JSON.stringify(name));
  const walk = (node: Record<string, unknown>, indent: string): void => {
    for (const [name, value] of Object.entries(node)) {
      if (value !== null && typeof value === 'object') {
        const entries = Object.keys(value);
        if (entries.length === 0) lines.push(`${indent}${key(name)}: {}`);
        else {
          lines.push(`${indent}${key(name)}:`);
          walk(value as Record<string, unknown>, `${indent}  `);
        }
      } else if (COUNT_FIELDS.has(name)) {
        lines.push(`${indent}${key(name)}: ${String(value)}`);
      } else {
        lines.push(`${indent}${key(name)}: ${pyYamlFloat(value as number)}`);
      }
    }
  };
  walk(tree as unknown as Record<string, unknown>, '');
  return `${lines.join('\n')}\n`;
}

/** PyYAML's `represent_float`. */
function pyYamlFloat(value: number): string {
  if (Number.isNaN(value)) return '.nan';
  if (value === Number.POSITIVE_INFINITY) return '.inf';
  if (value === Number.NEGATIVE_INFINITY) return '-.inf';
  const repr = pythonFloatRepr(value).toLowerCase();
  return !repr.includes('.') && repr.includes('e') ? repr.replace('e', '.0e') : repr;
}

export interface PresentBenchFiles {
  result: string;
  /** Written only when every item is answered (judge.py's scoring would stop on an unanswered one). */
  score: string | null;
}

/**
 * Where the PresentBench files of one evaluation go: `results-dir` writes judge.py's own names
 * (`<model>_<YYYY-MM-DD_HH-MM-SS>.yaml` and `…_score.yaml`) into a case's `generation_task/results/`;
 * `file` writes the result to a fixed path and the score beside it (`<name>_score.yaml`).
 */
export type PresentBenchTarget =
  | { kind: 'results-dir'; dir: string; model: string }
  | { kind: 'file'; file: string };

/** The result files judge.py's `find_resume_yaml` would consider for `prefix`, newest first. */
async function resultFilesFor(dir: string, prefix: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const stamp = /(\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2})/;
  const names = (await readdir(dir)).filter(
    (name) =>
      name.startsWith(`${prefix}_`) &&
      name.endsWith('.yaml') &&
      !name.endsWith('_score.yaml') &&
      stamp.test(name),
  );
  const stampOf = (name: string) => stamp.exec(name)?.[1] ?? '';
  return names.sort((a, b) => stampOf(b).localeCompare(stampOf(a))).map((name) => join(dir, name));
}

export interface WritePresentBenchOptions {
  /** The instance's class weights; without them no score file is written. */
  weights?: RubricClassWeights;
  errors?: ErrorExport;
  /** The time in the new file's name (default now). */
  now?: Date;
}

/**
 * Writes the evaluation as PresentBench files (atomically). In a results folder an unchanged result
 * is not written again: when the newest `<model>_<time>.yaml` there already holds the same text, its
 * path is returned, so re-runs do not pile up files (judge.py's resume picks the newest). The score
 * YAML is written only when every item is answered and weights are known; a stale score file of the
 * same name is removed, since judge.py skips judging when it finds one.
 */
export async function writePresentBenchFiles(
  evaluation: RubricEvaluation,
  target: PresentBenchTarget,
  options: WritePresentBenchOptions = {},
): Promise<PresentBenchFiles> {
  const result = toPresentBenchResult(evaluation, { errors: options.errors ?? 'as-null' });
  const text = stringifyPresentBenchResult(result);
  let file: string;
  let unchanged = false;
  if (target.kind === 'results-dir') {
    const prefix = modelFilenamePrefix(target.model);
    const [newest] = await resultFilesFor(target.dir, prefix);
    unchanged = newest !== undefined && (await readFile(newest, 'utf8')) === text;
    file =
      unchanged && newest
        ? newest
        : join(target.dir, `${prefix}_${presentBenchTimestamp(options.now ?? new Date())}.yaml`);
  } else {
    file = target.file;
  }
  validateRecord(presentBenchResultFileSchema, result, { file });
  if (!unchanged) await writeFileAtomic(file, text);
  const scoreFile = scoreFileFor(file);
  if (!isResultAnswered(result) || !options.weights) {
    await rm(scoreFile, { force: true });
    return { result: file, score: null };
  }
  const tree = validateRecord(
    presentBenchScoreFileSchema,
    scorePresentBenchResult(result, options.weights, { file }),
    { file: scoreFile },
  );
  await writeFileAtomic(scoreFile, dumpScoreTreeYaml(tree));
  return { result: file, score: scoreFile };
}

/** A deck in PresentBench's own layout: `slides.pdf|pptx` in a case's `generation_task/results/`. */
export function isPresentBenchResultsDeck(deckPath: string): boolean {
  const dir = dirname(deckPath);
  return (
    /^slides\.(pdf|pptx)$/i.test(basename(deckPath)) &&
    basename(dir) === 'results' &&
    basename(dirname(dir)) === 'generation_task'
  );
}

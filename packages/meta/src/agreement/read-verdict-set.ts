import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import {
  compareCodePoints,
  correctnessSchema,
  InputError,
  probeScoreSchema,
  readJson,
  readJsonlAll,
  UsageError,
} from '@xsb/core';
import {
  itemsFromPresentBenchResult,
  type RubricItemResult,
  readPresentBenchResult,
  rubricEvaluationSchema,
} from '@xsb/rubric';

/** One judged item: a rubric item, a probe's coverage, a claim's label. */
export interface VerdictItem {
  /** `<relative file>#<item>`: the same item in two result sets has the same key. */
  key: string;
  /** `rubric.<dimension>`, `probe_coverage` or `claim_label`. */
  class: string;
  value: string;
}

export interface VerdictSet {
  source: string;
  judges: string[];
  items: Map<string, VerdictItem>;
  files: string[];
}

const RUBRIC_JSON = /\.xsb_rubric_[^/\\]*\.json$/;
const RUBRIC_YAML = /\.xsb_rubric_[^/\\]*_presentbench\.ya?ml$/;

/** Claim texts are matched, not claim ids: ids are positions, and two judges' claim lists differ. */
export function claimKey(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

function rubricVerdicts(
  items: readonly RubricItemResult[],
  base: string,
  add: (item: VerdictItem) => void,
): void {
  for (const item of items) {
    // `error` and `not_judged` carry no verdict to agree on; they are left out, not counted as "no".
    if (item.verdict === 'error' || item.verdict === 'not_judged') continue;
    // An item a deterministic check decided is the code's verdict, not the judge's: two judges (or two
    // repeats) always agree on it, which would only inflate agreement.
    if (item.kind === 'check' || item.decided_by_check === true) continue;
    // Item keys (`1.1`) restart in each section: the section is part of the key.
    add({
      key: `${base}#${item.section}/${item.key}`,
      class: `rubric.${item.dimension}`,
      value: item.verdict,
    });
  }
}

/** The part of a file's path that identifies its items in both result sets. */
function itemBase(root: string | undefined, file: string): string {
  const rel = root === undefined ? '' : relative(root, file).split(sep).join('/');
  // The judge is part of a rubric file's name; the deck it judged is what must match.
  if (RUBRIC_JSON.test(rel)) return rel.replace(RUBRIC_JSON, '');
  if (RUBRIC_YAML.test(rel)) return rel.replace(RUBRIC_YAML, '');
  return rel;
}

/** What a verdict file holds, from its name (`null`: not a verdict file). */
export type VerdictFileKind = 'probe_scores' | 'correctness' | 'rubric' | 'presentbench';

function kindOfName(name: string): VerdictFileKind | null {
  if (name.endsWith('.jsonl')) return 'probe_scores';
  if (name === 'correctness.json' || name.endsWith('.correctness.json')) return 'correctness';
  if (name.endsWith('.json')) return 'rubric';
  if (name.endsWith('.yaml') || name.endsWith('.yml')) return 'presentbench';
  return null;
}

/** The verdicts of one file keyed `<base>#<item>`; a repeat's files are read with the kind of their repeat-0 file. */
export async function readVerdictFile(
  file: string,
  kind: VerdictFileKind,
  base = '',
): Promise<{ items: VerdictItem[]; judges: string[] }> {
  const items: VerdictItem[] = [];
  const judges = new Set<string>();
  const judge = (id: unknown) => {
    if (typeof id === 'string') judges.add(id);
  };
  const add = (item: VerdictItem) => items.push(item);
  if (kind === 'probe_scores') {
    for (const row of await readJsonlAll(file, probeScoreSchema)) {
      add({
        key: `${base}#${row.probe_id}`,
        class: 'probe_coverage',
        value: row.covered ? 'covered' : 'not_covered',
      });
      judge(row.metadata.judge);
    }
  } else if (kind === 'correctness') {
    const correctness = await readJson(file, correctnessSchema);
    judge(correctness.judge);
    for (const claim of correctness.claims)
      add({ key: `${base}#claim:${claimKey(claim.text)}`, class: 'claim_label', value: claim.label });
  } else if (kind === 'rubric') {
    const evaluation = await readJson(file, rubricEvaluationSchema);
    judge(evaluation.judge);
    rubricVerdicts(evaluation.items, base, add);
  } else {
    rubricVerdicts(itemsFromPresentBenchResult(await readPresentBenchResult(file)), base, add);
  }
  return { items, judges: [...judges] };
}

async function readFileVerdicts(file: string, base: string, set: VerdictSet): Promise<boolean> {
  const kind = kindOfName(basename(file));
  if (kind === null) return false;
  const { items, judges } = await readVerdictFile(file, kind, base);
  for (const item of items) if (!set.items.has(item.key)) set.items.set(item.key, item);
  for (const id of judges) if (!set.judges.includes(id)) set.judges.push(id);
  return true;
}

/** Test–retest files (`….repeat-<r>.json`, `….retest.json`) sit beside the verdicts of repeat 0; they are not read as more of them. */
const RETEST_FILE = /\.(repeat-\d+|retest)\.json$/;

function isVerdictFile(path: string): boolean {
  const name = basename(path);
  if (RETEST_FILE.test(name)) return false;
  if (name === 'probe_scores.jsonl' || name === 'correctness.json' || RUBRIC_JSON.test(name)) return true;
  // A PresentBench-layout YAML written beside xsb's own rubric JSON says the same thing twice.
  if (RUBRIC_YAML.test(name))
    return !existsSync(join(dirname(path), name.replace(/_presentbench\.ya?ml$/, '.json')));
  return /^(result|.*_result|.*\.presentbench)\.ya?ml$/.test(name);
}

/**
 * A verdict set from a verdict file or a folder of them; in a folder, items are keyed by their path inside
 * it, so two folders (two judges' evaluation trees) match file by file.
 */
export async function readVerdictSet(path: string): Promise<VerdictSet> {
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new UsageError(`${path} does not exist`, { code: 'missing_file' });
  const set: VerdictSet = { source: path, judges: [], items: new Map(), files: [] };
  if (info.isFile()) {
    if (!(await readFileVerdicts(path, itemBase(undefined, path), set))) {
      throw new InputError(
        'not a verdict file (rubric evaluation JSON, PresentBench result YAML, probe_scores.jsonl or correctness.json)',
        { file: path },
      );
    }
    set.files.push(path);
    return set;
  }
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > 12) return;
    for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
      compareCodePoints(a.name, b.name),
    )) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await walk(full, depth + 1);
      else if (isVerdictFile(full) && (await readFileVerdicts(full, itemBase(path, full), set)))
        set.files.push(full);
    }
  };
  await walk(path, 0);
  if (set.files.length === 0)
    throw new UsageError(
      `${path} holds no verdict file (rubric evaluations, PresentBench results, probe_scores.jsonl, correctness.json)`,
    );
  return set;
}

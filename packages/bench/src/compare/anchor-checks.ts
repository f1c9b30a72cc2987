import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import {
  assertSafePathPart,
  compareCodePoints,
  type MetaAnchorCheck,
  metaAnchorCheckSchema,
  metaAnchorSetSchema,
  readJson,
} from '@xsb/core';
import { evaluationFilesFor } from '@xsb/rubric';

/**
 * Drift anchors on disk (frozen and checked by `xsb meta anchors`, @xsb/meta): the layout and the
 * reading of anchor checks live here, so `xsb bench compare` can read them without importing the
 * meta-evaluation package above it.
 */
export const DEFAULT_MIN_KAPPA = 0.8;

/** `<data>/meta/anchors/`: one folder per anchor set (anchor_set.json, decks/, verdicts/, rubric/, checks/). */
export function anchorsRoot(dataDir: string): string {
  return join(dataDir, 'meta', 'anchors');
}

export function anchorDir(dataDir: string, id: string): string {
  return join(anchorsRoot(dataDir), assertSafePathPart(id, 'anchor set id'));
}

export function anchorSetFile(dataDir: string, id: string): string {
  return join(anchorDir(dataDir, id), 'anchor_set.json');
}

/**
 * A judge id as a file-name part (`openai:gpt-4o` → `openai_gpt-4o`), the rule the rubric uses for
 * `<deck>.xsb_rubric_<judge>.json`, taken from it so the two never differ.
 */
export function judgeFileName(judge: string): string {
  return basename(evaluationFilesFor('x', judge).evaluation)
    .replace(/^x\.xsb_rubric_/, '')
    .replace(/\.json$/, '');
}

export function anchorCheckFile(dataDir: string, id: string, judge: string): string {
  return join(anchorDir(dataDir, id), 'checks', `${judgeFileName(judge)}.json`);
}

/** The run a check evaluates the anchor decks in: `<id>@anchors`. */
export function anchorRunName(id: string): string {
  return `${id}@anchors`;
}

/** Every anchor set id under `<data>/meta/anchors/`. */
export async function listAnchorSets(dataDir: string): Promise<string[]> {
  const root = anchorsRoot(dataDir);
  if (!existsSync(root)) return [];
  const entries = await readdir(root, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory() && existsSync(join(root, entry.name, 'anchor_set.json')))
    .map((entry) => entry.name)
    .sort(compareCodePoints);
}

/** Where one judge stands on one anchor set. */
export interface AnchorStanding {
  anchor_set: string;
  frozen_judge: string;
  /** The judge froze the set: its verdicts are the reference, it passes by definition. */
  froze: boolean;
  passed: boolean;
  kappa: number | null;
  n: number;
  /** Items of rubric classes (`rubric.*`) the check compared. */
  rubric_items: number;
  reason: string;
  check?: MetaAnchorCheck;
}

function standingOf(
  check: MetaAnchorCheck,
  minKappa: number,
): Omit<AnchorStanding, 'froze' | 'frozen_judge'> {
  const rubricItems = check.classes
    .filter((row) => row.class.startsWith('rubric.'))
    .reduce((sum, row) => sum + row.n, 0);
  const base = {
    anchor_set: check.anchor_set,
    kappa: check.kappa,
    n: check.n,
    rubric_items: rubricItems,
    check,
  };
  if (check.kappa === null)
    return {
      ...base,
      passed: check.passed && check.agreement === 1,
      reason: `anchor set "${check.anchor_set}": ${check.reason}`,
    };
  const passed = check.kappa >= minKappa;
  return {
    ...base,
    passed,
    reason: `anchor set "${check.anchor_set}" (${check.frozen_judge}): kappa ${check.kappa.toFixed(3)} ${passed ? '>=' : '<'} ${minKappa} over ${check.n} items, checked ${check.checked_at}`,
  };
}

/**
 * The judge's standing on every anchor set of the data folder at `minKappa`: the set it froze
 * (passes by definition, with the frozen item count), its check of each other set, or no entry for
 * a set it has not been checked against.
 */
export async function anchorStandings(
  dataDir: string,
  judgeId: string,
  minKappa = DEFAULT_MIN_KAPPA,
): Promise<AnchorStanding[]> {
  const standings: AnchorStanding[] = [];
  for (const id of await listAnchorSets(dataDir)) {
    const set = await readJson(anchorSetFile(dataDir, id), metaAnchorSetSchema);
    if (set.judge === judgeId) {
      standings.push({
        anchor_set: id,
        frozen_judge: set.judge,
        froze: true,
        passed: true,
        kappa: 1,
        n: set.item_count,
        rubric_items: set.rubric_item_count ?? 0,
        reason: `judge ${judgeId} froze anchor set "${id}": its verdicts are the reference`,
      });
      continue;
    }
    const file = anchorCheckFile(dataDir, id, judgeId);
    if (!existsSync(file)) continue;
    const check = await readJson(file, metaAnchorCheckSchema);
    standings.push({ ...standingOf(check, minKappa), frozen_judge: set.judge, froze: false });
  }
  return standings;
}

/** What `xsb bench compare` needs to know before comparing runs of different judges. */
export interface AnchorCheckVerdict {
  passed: boolean;
  reason: string;
  check?: MetaAnchorCheck;
}

/**
 * Whether `judgeId` passed an anchor check at `minKappa` (the caller's threshold, default 0.8; the
 * newest check of that judge over all anchor sets counts). The judge that froze an anchor set passes
 * it by definition. Never throws for a missing check: it says what to run.
 */
export async function anchorCheckPasses(
  dataDir: string,
  judgeId: string,
  options: { minKappa?: number } = {},
): Promise<AnchorCheckVerdict> {
  const minKappa = options.minKappa ?? DEFAULT_MIN_KAPPA;
  const ids = await listAnchorSets(dataDir);
  const standings = await anchorStandings(dataDir, judgeId, minKappa);
  const froze = standings.find((standing) => standing.froze);
  if (froze) return { passed: true, reason: froze.reason };
  if (standings.length === 0) {
    return {
      passed: false,
      reason:
        ids.length === 0
          ? `no anchor set in ${anchorsRoot(dataDir)}: freeze one and check judge ${judgeId} against it`
          : `judge ${judgeId} has no anchor check against the frozen anchor set`,
    };
  }
  const newest = standings.sort((a, b) =>
    (a.check?.checked_at ?? '') < (b.check?.checked_at ?? '') ? 1 : -1,
  )[0]!;
  return { passed: newest.passed, reason: newest.reason, ...(newest.check ? { check: newest.check } : {}) };
}

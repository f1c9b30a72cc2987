import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import type { Metrics } from '@xsb/core';
import { compareCodePoints, isXsbError } from '@xsb/core/basics';
import { loadCoreRecords } from './core-records';
import { EVALUATION_FILES, EVALUATION_VARIANT_PREFIX } from './evaluation-files';
import { splitSystemId, systemIdFor } from './system-id';

export interface MetricRow {
  system_id: string;
  system: string | null;
  condition: string | null;
  audience: string;
  case_label: string;
  origin: 'compact' | 'evaluation';
  file: string;
  /** The evaluation folder, for rows read from one (domain coverage needs its score file). */
  evaluationDir: string | null;
  metrics: Metrics;
}

export type SkippedMetricFile = {
  file: string;
  reason: string;
};

/** A second file for a row already read (e.g. the compact copy of an evaluation's metrics.json). */
export interface DuplicateMetricFile {
  file: string;
  duplicate_of: string;
}

/** A metrics-like JSON file has both `audience` and `tau_a`; other JSON artifacts are not metric rows. */
function looksLikeMetrics(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && 'audience' in value && 'tau_a' in value;
}

function stringField(record: Record<string, unknown>, key: string): string | null {
  const value = record[key];
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/**
 * Stage 7 input discovery. Under each root (sorted walk):
 * - `metrics.json` beside `run_manifest.json` is a full evaluation folder; identity comes from its
 *   `system`/`condition`/`case_label`/`audience` fields, else from the path
 *   `…/<system>/<condition>/<audience>/<case>/metrics.json`; system_id = `<system>__<condition>`.
 * - any other metrics-like JSON is a compact file `…/<system_id>/<audience>/<case>.json`.
 * One row per (system_id, audience, case): an evaluation folder wins over its compact copy; later
 * duplicates are listed in `duplicates`.
 */
export async function scanMetricFiles(
  roots: readonly string[],
): Promise<{ rows: MetricRow[]; skipped: SkippedMetricFile[]; duplicates: DuplicateMetricFile[] }> {
  const candidates: MetricRow[] = [];
  const skipped: SkippedMetricFile[] = [];
  for (const root of roots) {
    if (!existsSync(root)) {
      skipped.push({ file: root, reason: 'folder not found' });
      continue;
    }
    const entries = (await readdir(root, { recursive: true })).map(String).sort();
    for (const entry of entries.filter(isMetricCandidate)) {
      const file = join(root, entry);
      const read = await readMetricFile(file);
      if (read === null) continue;
      const row =
        'reason' in read ? read : rowOfMetricFile({ ...read, file, parts: relative(root, file).split(sep) });
      if ('reason' in row) skipped.push({ file, reason: row.reason });
      else candidates.push(row);
    }
  }
  const { rows, duplicates } = chooseMetricRows(candidates);
  return { rows, skipped, duplicates };
}

/** A JSON file outside the correctness cache and the bench's variant evaluations (not rows of the run). */
export function isMetricCandidate(entry: string): boolean {
  if (!entry.endsWith('.json')) return false;
  const parts = entry.split(sep);
  return (
    !parts.includes('correctness_cache') && !parts.some((part) => part.startsWith(EVALUATION_VARIANT_PREFIX))
  );
}

/** A metrics file read and validated; null when the JSON is not metrics-like; a reason to skip it otherwise. */
async function readMetricFile(
  file: string,
): Promise<{ parsed: Record<string, unknown>; metrics: Metrics } | { reason: string } | null> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    // it may be a torn metrics file: say so rather than silently dropping a row
    return { reason: `not valid JSON (${(error as Error).message})` };
  }
  if (!looksLikeMetrics(parsed)) return null;
  const { metricsSchema, validateRecord } = await loadCoreRecords();
  try {
    return { parsed, metrics: validateRecord(metricsSchema, parsed, { file }) };
  } catch (error) {
    if (!isXsbError(error)) throw error;
    return { reason: error.message };
  }
}

interface MetricFile {
  file: string;
  /** The file's path under its root, split into folders and name. */
  parts: string[];
  parsed: Record<string, unknown>;
  metrics: Metrics;
}

function rowOfMetricFile(found: MetricFile): MetricRow | { reason: string } {
  const isEvaluation =
    basename(found.file) === EVALUATION_FILES.metrics &&
    existsSync(join(dirname(found.file), EVALUATION_FILES.manifest));
  return isEvaluation ? evaluationRow(found) : compactRow(found);
}

/** An evaluation folder's row: identity from the file's fields, else `…/<system>/<condition>/<audience>/<case>/`. */
export function evaluationRow({ file, parts, parsed, metrics }: MetricFile): MetricRow | { reason: string } {
  const pathParts = parts.slice(0, -1);
  const system = stringField(parsed, 'system') ?? pathParts.at(-4) ?? null;
  const condition = stringField(parsed, 'condition') ?? pathParts.at(-3) ?? null;
  const caseLabel = stringField(parsed, 'case_label') ?? pathParts.at(-1) ?? null;
  if (!system || !condition || !caseLabel) {
    return { reason: 'cannot infer system, condition and case from the fields or path' };
  }
  return {
    system_id: stringField(parsed, 'system_id') ?? systemIdFor(system, condition),
    system,
    condition,
    audience: metrics.audience,
    case_label: caseLabel,
    origin: 'evaluation',
    file,
    evaluationDir: dirname(file),
    metrics,
  };
}

/** A compact file's row, `…/<system_id>/<audience>/<case>.json`; its folder must name its audience. */
export function compactRow({ file, parts, parsed, metrics }: MetricFile): MetricRow | { reason: string } {
  if (parts.length < 3) return { reason: 'compact metric files must be <system>/<audience>/<case>.json' };
  const systemId = parts.at(-3)!;
  const audienceDir = parts.at(-2)!;
  if (audienceDir !== metrics.audience) {
    return { reason: `folder audience "${audienceDir}" differs from "${metrics.audience}"` };
  }
  const split = splitSystemId(systemId);
  return {
    system_id: systemId,
    system: stringField(parsed, 'system') ?? split.system,
    condition: stringField(parsed, 'condition') ?? split.condition,
    audience: metrics.audience,
    case_label: basename(file, '.json'),
    origin: 'compact',
    file,
    evaluationDir: null,
    metrics,
  };
}

/**
 * One row per (system_id, audience, case), sorted by them: an evaluation folder wins over a compact
 * copy, else the first found; the others are duplicates.
 */
export function chooseMetricRows(candidates: readonly MetricRow[]): {
  rows: MetricRow[];
  duplicates: DuplicateMetricFile[];
} {
  const rank = (row: MetricRow) => (row.origin === 'evaluation' ? 0 : 1);
  const ordered = [...candidates].sort((a, b) => rank(a) - rank(b));
  const chosen = new Map<string, MetricRow>();
  const duplicates: DuplicateMetricFile[] = [];
  for (const row of ordered) {
    const key = `${row.system_id}\u0000${row.audience}\u0000${row.case_label}`;
    const kept = chosen.get(key);
    if (kept) duplicates.push({ file: row.file, duplicate_of: kept.file });
    else chosen.set(key, row);
  }
  const rows = [...chosen.values()].sort(
    (a, b) =>
      compareCodePoints(a.system_id, b.system_id) ||
      compareCodePoints(a.audience, b.audience) ||
      compareCodePoints(a.case_label, b.case_label),
  );
  return { rows, duplicates };
}

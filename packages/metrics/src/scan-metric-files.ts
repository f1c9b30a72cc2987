import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { compareCodePoints, isXsbError, type Metrics, metricsSchema, validateRecord } from '@xsb/core';
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
    for (const entry of entries) {
      if (!entry.endsWith('.json')) continue;
      if (entry.split(sep).includes('correctness_cache')) continue;
      // Evaluations under other settings (the bench's variants) are not rows of the run's results.
      if (entry.split(sep).some((part) => part.startsWith(EVALUATION_VARIANT_PREFIX))) continue;
      const file = join(root, entry);
      let parsed: unknown;
      try {
        parsed = JSON.parse(await readFile(file, 'utf8'));
      } catch (error) {
        // it may be a torn metrics file: say so rather than silently dropping a row
        skipped.push({ file, reason: `not valid JSON (${(error as Error).message})` });
        continue;
      }
      if (!looksLikeMetrics(parsed)) continue;
      let metrics: Metrics;
      try {
        metrics = validateRecord(metricsSchema, parsed, { file });
      } catch (error) {
        if (!isXsbError(error)) throw error;
        skipped.push({ file, reason: error.message });
        continue;
      }
      const parts = relative(root, file).split(sep);
      const isEvaluation =
        basename(file) === EVALUATION_FILES.metrics &&
        existsSync(join(dirname(file), EVALUATION_FILES.manifest));
      if (isEvaluation) {
        const pathParts = parts.slice(0, -1);
        const system = stringField(parsed, 'system') ?? pathParts.at(-4) ?? null;
        const condition = stringField(parsed, 'condition') ?? pathParts.at(-3) ?? null;
        const caseLabel = stringField(parsed, 'case_label') ?? pathParts.at(-1) ?? null;
        if (!system || !condition || !caseLabel) {
          skipped.push({ file, reason: 'cannot infer system, condition and case from the fields or path' });
          continue;
        }
        candidates.push({
          system_id: stringField(parsed, 'system_id') ?? systemIdFor(system, condition),
          system,
          condition,
          audience: metrics.audience,
          case_label: caseLabel,
          origin: 'evaluation',
          file,
          evaluationDir: dirname(file),
          metrics,
        });
        continue;
      }
      if (parts.length < 3) {
        skipped.push({ file, reason: 'compact metric files must be <system>/<audience>/<case>.json' });
        continue;
      }
      const systemId = parts.at(-3)!;
      const audienceDir = parts.at(-2)!;
      if (audienceDir !== metrics.audience) {
        skipped.push({ file, reason: `folder audience "${audienceDir}" differs from "${metrics.audience}"` });
        continue;
      }
      const split = splitSystemId(systemId);
      candidates.push({
        system_id: systemId,
        system: stringField(parsed, 'system') ?? split.system,
        condition: stringField(parsed, 'condition') ?? split.condition,
        audience: metrics.audience,
        case_label: basename(file, '.json'),
        origin: 'compact',
        file,
        evaluationDir: null,
        metrics,
      });
    }
  }
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
  return { rows, skipped, duplicates };
}

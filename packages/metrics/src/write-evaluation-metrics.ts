import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, dirname, join, sep } from 'node:path';
import type { JudgeDescriptor, RunLayout } from '@xsb/core';
import { InputError, isXsbError, UsageError } from '@xsb/core/basics';
import type { ComputedMetrics } from './compute-metrics';
import { loadCoreRecords } from './core-records';
import { EVALUATION_FILES } from './evaluation-files';
import { recomputeEvaluationMetrics } from './recompute-evaluation-metrics';
import {
  assertFiltersMatch,
  type FilterableIdentity,
  hasFilters,
  matchesFilters,
  type RowFilters,
} from './row-filters';
import { systemIdFor } from './system-id';

export interface EvaluationIdentity {
  system: string;
  condition: string;
  audience: string;
  case_label: string;
}

/** What stage 6 writes to `metrics.json`: the metrics, the job's identity and the judges behind them. */
export type EvaluationMetricsRecord = ComputedMetrics &
  EvaluationIdentity & { system_id: string; judges: JudgeDescriptor[] };

function evaluationIdentity(job: Record<string, unknown>, manifestFile: string): EvaluationIdentity {
  const fields = ['system', 'condition', 'audience', 'case_label'] as const;
  const missing = fields.filter((field) => typeof job[field] !== 'string' || job[field] === '');
  if (missing.length > 0)
    throw new InputError(`run manifest settings.job lacks ${missing.join(', ')}`, { file: manifestFile });
  return job as unknown as EvaluationIdentity;
}

/**
 * Stage 6 for one evaluation folder: recomputes metrics from its files and writes `metrics.json`
 * there and the same content to the compact `metrics/<system_id>/<audience>/<case>.json` of the run
 * (unless `compactCopy: false`, for variant evaluations).
 */
export async function writeEvaluationMetrics(
  layout: RunLayout,
  run: string,
  evaluationDir: string,
  options: { tauA?: number; compactCopy?: boolean } = {},
): Promise<EvaluationMetricsRecord> {
  const { metrics, inputs } = await recomputeEvaluationMetrics(evaluationDir, options);
  const identity = evaluationIdentity(inputs.identity, join(evaluationDir, EVALUATION_FILES.manifest));
  const systemId = systemIdFor(identity.system, identity.condition);
  const record = {
    system_id: systemId,
    system: identity.system,
    condition: identity.condition,
    case_label: identity.case_label,
    ...metrics,
    judges: inputs.judges,
  };
  const { metricsSchema, writeJson } = await loadCoreRecords();
  await writeJson(join(evaluationDir, EVALUATION_FILES.metrics), metricsSchema, record);
  // A variant evaluation (other settings) has no compact copy: it would replace the default one.
  if (options.compactCopy !== false)
    await writeJson(
      layout.compactMetricsFile(run, systemId, metrics.audience, identity.case_label),
      metricsSchema,
      record,
    );
  return record;
}

/** An evaluation folder with a status.json; its identity is its path `<system>/<condition>/<audience>/<case>`. */
interface EvaluationFolder extends FilterableIdentity {
  dir: string;
  done: boolean;
}

async function listEvaluationFolders(layout: RunLayout, run: string): Promise<EvaluationFolder[]> {
  const root = layout.evaluationsRoot(run);
  if (!existsSync(root)) return [];
  const { evalJobStatusSchema, readJson } = await loadCoreRecords();
  const found: EvaluationFolder[] = [];
  const entries = await readdir(root, { recursive: true });
  for (const entry of entries.map(String).sort()) {
    if (basename(entry) !== EVALUATION_FILES.status) continue;
    const dir = join(root, dirname(entry));
    const status = await readJson(join(dir, EVALUATION_FILES.status), evalJobStatusSchema).catch(() => null);
    const [system, condition, audience, caseLabel] = dirname(entry).split(sep);
    found.push({
      dir,
      done: status?.status === 'done',
      system: system ?? null,
      condition: condition ?? null,
      audience: audience ?? null,
      case_label: caseLabel ?? null,
    });
  }
  return found;
}

/**
 * `xsb metrics`: recomputes stage 6 for every finished evaluation of a run (narrowed by `filters`);
 * no judge is called. A filter value naming no evaluation folder of the run is a UsageError.
 */
export async function rescoreRun(
  layout: RunLayout,
  run: string,
  options: { tauA?: number; filters?: RowFilters } = {},
): Promise<{
  rows: EvaluationMetricsRecord[];
  failures: Array<{ evaluationDir: string; message: string }>;
}> {
  const rows = [];
  const failures = [];
  const folders = await listEvaluationFolders(layout, run);
  const filters = options.filters ?? {};
  if (hasFilters(filters)) assertFiltersMatch(filters, folders, `among the evaluations of run "${run}"`);
  const selected = folders.filter((folder) => folder.done && matchesFilters(filters, folder));
  if (hasFilters(filters) && selected.length === 0)
    throw new UsageError(`no finished evaluation of run "${run}" matches all the filters at once`);
  for (const { dir } of selected) {
    try {
      rows.push(await writeEvaluationMetrics(layout, run, dir, options));
    } catch (error) {
      if (!isXsbError(error)) throw error;
      failures.push({ evaluationDir: dir, message: error.message });
    }
  }
  return { rows, failures };
}

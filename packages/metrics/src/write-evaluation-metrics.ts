import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import {
  evalJobStatusSchema,
  InputError,
  isXsbError,
  metricsSchema,
  type RunLayout,
  readJson,
  writeJson,
} from '@xsb/core';
import type { ComputedMetrics } from './compute-metrics';
import { EVALUATION_FILES } from './evaluation-files';
import { recomputeEvaluationMetrics } from './recompute-evaluation-metrics';
import { systemIdFor } from './system-id';

export interface EvaluationIdentity {
  system: string;
  condition: string;
  audience: string;
  case_label: string;
}

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
): Promise<ComputedMetrics & EvaluationIdentity & { system_id: string }> {
  const { metrics, inputs } = await recomputeEvaluationMetrics(evaluationDir, options);
  const identity = evaluationIdentity(inputs.identity, join(evaluationDir, EVALUATION_FILES.manifest));
  const systemId = systemIdFor(identity.system, identity.condition);
  const record = {
    system_id: systemId,
    system: identity.system,
    condition: identity.condition,
    case_label: identity.case_label,
    ...metrics,
  };
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

/** Every finished evaluation folder of a run (status `done`), in sorted path order. */
export async function listFinishedEvaluations(layout: RunLayout, run: string): Promise<string[]> {
  const root = layout.evaluationsRoot(run);
  if (!existsSync(root)) return [];
  const found: string[] = [];
  const entries = await readdir(root, { recursive: true });
  for (const entry of entries.map(String).sort()) {
    if (basename(entry) !== EVALUATION_FILES.status) continue;
    const dir = join(root, dirname(entry));
    const status = await readJson(join(dir, EVALUATION_FILES.status), evalJobStatusSchema).catch(() => null);
    if (status?.status === 'done') found.push(dir);
  }
  return found;
}

/** `xsb metrics`: recomputes stage 6 for every finished evaluation of a run; no judge is called. */
export async function rescoreRun(
  layout: RunLayout,
  run: string,
  options: { tauA?: number } = {},
): Promise<{
  rows: Array<ComputedMetrics & EvaluationIdentity & { system_id: string }>;
  failures: Array<{ evaluationDir: string; message: string }>;
}> {
  const rows = [];
  const failures = [];
  for (const dir of await listFinishedEvaluations(layout, run)) {
    try {
      rows.push(await writeEvaluationMetrics(layout, run, dir, options));
    } catch (error) {
      if (!isXsbError(error)) throw error;
      failures.push({ evaluationDir: dir, message: error.message });
    }
  }
  return { rows, failures };
}

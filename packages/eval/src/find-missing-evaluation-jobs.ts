import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { evalJobStatusSchema, isXsbError, type MissingJob, type RunLayout, readJson } from '@xsb/core';
import { EVALUATION_FILES } from '@xsb/metrics';
import {
  type DiscoveryFailure,
  deckFolderIdentity,
  discoverDeckRows,
  evaluationDirOf,
  expandEvaluationJobs,
} from './discover-evaluation-jobs';

/** Why a job's folder holds no metrics.json, from what the folder does hold. */
async function missingReason(dir: string): Promise<Pick<MissingJob, 'status' | 'reason'>> {
  const statusFile = join(dir, EVALUATION_FILES.status);
  if (existsSync(statusFile)) {
    try {
      const status = await readJson(statusFile, evalJobStatusSchema);
      if (status.status === 'failed')
        return { status: 'failed', reason: status.error ?? 'failed (no reason recorded)' };
      return {
        status: 'deleted',
        reason: 'status.json says done but metrics.json is gone; recompute its metrics or evaluate it again',
      };
    } catch (error) {
      if (!isXsbError(error)) throw error;
      return {
        status: 'incomplete',
        reason: `status.json unreadable (${error.message}); evaluate it again`,
      };
    }
  }
  if (existsSync(dir))
    return {
      status: 'incomplete',
      reason: 'no status.json: interrupted while being written (or being written now); evaluate it again',
    };
  return { status: 'not_run', reason: 'not evaluated yet' };
}

/** A deck-tree failure as a missing job, its identity read from the folder path where it has one. */
function undiscoverable(layout: RunLayout, run: string, failure: DiscoveryFailure): MissingJob {
  return {
    ...deckFolderIdentity(layout, run, failure.where),
    status: 'undiscoverable',
    reason: failure.error.message,
    where: failure.where,
  };
}

/**
 * The evaluation jobs of a run (the deck tree expanded over audiences, as `xsb eval` does) that have
 * no metrics.json, each with why: `failed` (the reason its status.json records), `not_run`,
 * `incomplete` (a folder without status: killed or still being written), `deleted` (done, but the
 * metrics are gone), or `undiscoverable` (a deck folder that yields no job: no deck, an unreadable
 * case). Stage 7 lists them so no job drops out of a summary silently. Folders are absolute paths.
 */
export async function findMissingEvaluationJobs(layout: RunLayout, run: string): Promise<MissingJob[]> {
  const { rows, failures } = await discoverDeckRows(layout, run);
  const expanded = await expandEvaluationJobs(layout, rows);
  const missing: MissingJob[] = [];
  for (const job of expanded.jobs) {
    const dir = evaluationDirOf(layout, run, job);
    if (existsSync(join(dir, EVALUATION_FILES.metrics))) continue;
    missing.push({
      system: job.system,
      condition: job.condition,
      audience: job.audience,
      case_label: job.caseLabel,
      ...(await missingReason(dir)),
      where: dir,
    });
  }
  for (const failure of [...failures, ...expanded.failures])
    missing.push(undiscoverable(layout, run, failure));
  return missing;
}

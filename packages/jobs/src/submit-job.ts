import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { didYouMean, hashBytes, identifyDeckContent } from '@xsb/core';
import { ApiDataLayout } from './api-data-layout';
import { type EvaluationFields, evaluationJobInput, prepareEvaluationRequest } from './evaluation-job';
import { fieldError } from './field-error';
import type { CancelOutcome, EnqueueInput, EnqueueOutcome, JobStore, StoredJob } from './job-store';
import { prepareRubricRequest, type RubricFields, rubricJobInput } from './rubric-job';
import type { JobKind } from './schemas/api-job';
import type { ApiDeckUpload } from './schemas/api-request';

export interface SubmitJobOptions {
  store: JobStore;
  dataDir: string;
  /** Where the server's keys are looked up (judges never take keys from a request). */
  env: Record<string, string | undefined>;
  submittedBy: string | null;
  /**
   * The uploaded deck, complete on disk; it is moved (renamed, so keep it on the data folder's file
   * system, e.g. in `ApiDataLayout.tmpDir()`) into the uploads folder when accepted, and left for the
   * caller to remove otherwise.
   */
  deck: { file: string; filename: string | null };
  /** The systems the server takes decks of (config `api.systems`); unset: any portable name. */
  systems?: readonly string[];
}

export type SubmitJobRequest =
  | { kind: Extract<JobKind, 'evaluation'>; fields: EvaluationFields }
  | { kind: Extract<JobKind, 'rubric_evaluation'>; fields: RubricFields };

/**
 * Accepts a deck job: the request is checked against the data folder (field errors name the field),
 * the deck is identified by content (`identifyDeckContent`: PPTX package or PDF, zip bombs stopped),
 * hashed, staged as `api/uploads/<job id>.<ext>` and enqueued. When the store answers with a job
 * already under way (same deck, case, audiences, judge, run, system and condition) or a busy deck
 * location, the staged copy is removed and that job is returned with the outcome.
 */
export async function submitJob(
  request: SubmitJobRequest,
  options: SubmitJobOptions,
): Promise<EnqueueOutcome> {
  const by = options.submittedBy;
  refuseUnknownSystem(request.fields.system, options.systems);
  const inputFor: (id: string, deck: ApiDeckUpload) => EnqueueInput =
    request.kind === 'evaluation'
      ? (
          (parameters) => (id, deck) =>
            evaluationJobInput(id, parameters, deck, by)
        )(await prepareEvaluationRequest(options.dataDir, request.fields, options.env))
      : (
          (parameters) => (id, deck) =>
            rubricJobInput(id, parameters, deck, by)
        )(await prepareRubricRequest(options.dataDir, request.fields, options.env));
  const bytes = await readFile(options.deck.file);
  const format = identifyDeckContent(bytes, options.deck.filename ?? 'the uploaded deck');
  const deck: ApiDeckUpload = {
    sha256: hashBytes(bytes),
    format,
    bytes: bytes.length,
    filename: options.deck.filename,
  };
  const id = randomUUID();
  const layout = new ApiDataLayout(options.dataDir);
  const staged = layout.upload(id, format);
  await mkdir(layout.uploadsDir(), { recursive: true });
  await rename(options.deck.file, staged);
  try {
    const outcome = await options.store.enqueue(inputFor(id, deck));
    if (outcome.outcome !== 'created') await rm(staged, { force: true });
    return outcome;
  } catch (error) {
    await rm(staged, { force: true });
    throw error;
  }
}

/** A system outside the server's configured list is refused at the door, naming the field. */
function refuseUnknownSystem(system: string | undefined, systems: readonly string[] | undefined): void {
  if (!systems || system === undefined || system === '' || systems.includes(system)) return;
  throw fieldError(
    'system',
    `unknown system ${JSON.stringify(system.slice(0, 80))}${didYouMean(system, systems)}; this server takes decks of: ${systems.join(', ')}`,
  );
}

/** Removes a job's staged upload (after it ended, or was canceled while queued). */
export async function removeStagedUpload(dataDir: string, job: StoredJob): Promise<void> {
  const format = (job.request as { deck?: { format?: 'pptx' | 'pdf' } }).deck?.format;
  if (format) await rm(new ApiDataLayout(dataDir).upload(job.id, format), { force: true });
}

/**
 * Removes staged uploads whose job has ended (a worker that died between recording the outcome and
 * removing the upload leaves one behind). Uploads of unknown jobs are left: their intake may be under way.
 */
export async function sweepStagedUploads(store: JobStore, dataDir: string): Promise<number> {
  const dir = new ApiDataLayout(dataDir).uploadsDir();
  let removed = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const job = await store.get(name.replace(/\.(pptx|pdf)$/, ''));
    if (job && !['queued', 'running'].includes(job.status)) {
      await removeStagedUpload(dataDir, job);
      removed += 1;
    }
  }
  return removed;
}

/** Cancels a job; a job canceled while queued gives up its staged upload at once. */
export async function cancelJob(
  store: JobStore,
  dataDir: string,
  id: string,
): Promise<{ outcome: CancelOutcome; job: StoredJob } | undefined> {
  const canceled = await store.cancel(id);
  if (canceled?.outcome === 'canceled') await removeStagedUpload(dataDir, canceled.job);
  return canceled;
}

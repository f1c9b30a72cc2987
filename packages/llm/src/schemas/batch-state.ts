import { z } from 'zod';

/** The custom_id both batch APIs accept: 1–64 characters of `[A-Za-z0-9_-]`. */
export const BATCH_CUSTOM_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

const count = z.number().int().min(0);

/**
 * One submission to a provider's batch API, as `@xsb/llm` keeps it in `runs/<run>/batches/<id>.json`.
 * It is written before the provider is called (`preparing`), again once the provider named the
 * batch (`submitted`, with `batchId`), and when its results were stored (`collected`). A process that
 * is restarted reads these files and polls the batches they name instead of submitting the same
 * requests again. Never holds prompts, answers or keys.
 */
export const batchStateSchema = z.looseObject({
  v: z.literal(1),
  /** xsb's own id of the submission, also the file name; sent to OpenAI as `metadata.xsb_batch`. */
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  provider: z.enum(['anthropic', 'openai']),
  /** The judge spec, e.g. `anthropic:claude-sonnet-4-5`. */
  judge: z.string().min(1),
  model: z.string().min(1),
  /** The API base URL, without credentials. */
  baseUrl: z.string().min(1),
  /**
   * `preparing`: written, provider not (or not known to be) called yet; `submitted`: the provider
   * holds the batch; `collected`: its results were stored; `failed`: no batch exists for it.
   */
  status: z.enum(['preparing', 'submitted', 'collected', 'failed']),
  /** 1 for a first submission, n for the n-th submission of a request that had no answer before. */
  round: z.number().int().min(1),
  createdAt: z.string().min(1),
  /** The process that wrote the record, so another one does not take over a submission still under way. */
  owner: z.object({ pid: z.number().int().positive(), host: z.string().min(1) }).optional(),
  submittedAt: z.string().min(1).optional(),
  collectedAt: z.string().min(1).optional(),
  /** The provider's id (`msgbatch_…` / `batch_…`), once it gave one. */
  batchId: z.string().min(1).optional(),
  /** OpenAI: the uploaded JSONL file the batch reads. */
  inputFileId: z.string().min(1).optional(),
  /** The last status the provider reported (`in_progress`, `ended`, `finalizing`, `expired`, …). */
  providerStatus: z.string().min(1).optional(),
  /** The request → custom_id map: the request's disk-cache key, its custom_id and ledger stage. */
  requests: z
    .array(
      z.object({
        customId: z.string().regex(BATCH_CUSTOM_ID_PATTERN),
        key: z.string().regex(/^[0-9a-f]{64}$/),
        stage: z.string().min(1),
      }),
    )
    .min(1),
  /** After collection: custom_ids that got no answer (errored, expired, canceled or absent). */
  missing: z.array(z.string().regex(BATCH_CUSTOM_ID_PATTERN)).optional(),
  counts: z
    .object({ succeeded: count, errored: count, expired: count, canceled: count, absent: count })
    .optional(),
  /** Why a submission failed, or why the batch as a whole failed. */
  error: z.string().optional(),
});
export type BatchState = z.infer<typeof batchStateSchema>;

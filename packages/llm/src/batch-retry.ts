import { classifyFailure, type Failure } from './classify-failure';
import { sleep } from './rate-limiter';
import { backoffDelayMs, type ResolvedLimits } from './retry-policy';

/** A batch-API call (upload, create, status, results, cancel) that failed for good. */
export class BatchCallError extends Error {
  constructor(
    readonly failure: Failure,
    readonly attempts: number,
  ) {
    super(failure.reason);
  }
}

export interface BatchRetryPolicy {
  limits: Pick<ResolvedLimits, 'maxAttempts' | 'maxTotalWaitMs'>;
  baseBackoffMs?: number;
  random?: () => number;
}

/**
 * One batch-API call under the online retry rule. `beforeRetry` runs after an ambiguous failure (the
 * provider may have done the work): how a lost create finds its batch instead of making a second.
 */
export async function retryBatchCall<T>(
  call: () => Promise<T>,
  policy: BatchRetryPolicy,
  beforeRetry?: (failure: Failure) => Promise<T | undefined>,
): Promise<T> {
  let waited = 0;
  for (let attempt = 1; ; attempt += 1) {
    let failure: Failure;
    try {
      return await call();
    } catch (error) {
      failure = classifyFailure(error, false);
    }
    if (beforeRetry && isAmbiguous(failure)) {
      const found = await beforeRetry(failure).catch(() => undefined);
      if (found !== undefined) return found;
    }
    const delay = failure.retryAfterMs ?? backoffDelayMs(attempt, policy.random, policy.baseBackoffMs);
    if (
      !failure.retryable ||
      attempt >= policy.limits.maxAttempts ||
      waited + delay > policy.limits.maxTotalWaitMs
    )
      throw new BatchCallError(failure, attempt);
    await sleep(delay);
    waited += delay;
  }
}

/** A failure after which the provider may still have acted on the call. */
function isAmbiguous(failure: Failure): boolean {
  return failure.status === undefined ? failure.code !== 'unexpected' : failure.status >= 500;
}

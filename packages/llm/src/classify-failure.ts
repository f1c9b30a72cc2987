import type { XsbErrorCode } from '@xsb/core';
import { isRetryableStatus, retryAfterMs } from './retry-policy';

/** A 2xx answer whose body is not a usable completion (empty, truncated, not JSON). Retried. */
export class MalformedAnswerError extends Error {}

export interface Failure {
  retryable: boolean;
  /** Stable code for the ledger and the ProviderError. */
  code: XsbErrorCode;
  status?: number;
  /** The wait the server asked for, in ms. */
  retryAfterMs?: number;
  /** A short reason for messages (the server's own message where it gave one). */
  reason: string;
}

/** What both SDKs' `APIError` carries (their `APIConnectionError` is one too, with no status). */
interface SdkApiError extends Error {
  status: number | undefined;
  headers: Headers | undefined;
  error: unknown;
}

// biome-ignore lint/suspicious/noExplicitAny: an error class of either SDK, whatever its constructor takes
type ErrorClass = abstract new (...args: any[]) => Error;

/**
 * The `APIError` and `APIConnectionError` classes of each SDK loaded so far. The SDKs are imported
 * only when a model client first calls (provider-sdks.ts), which registers them here before any
 * client exists, so this module imports neither and every error an SDK call throws is still known
 * by its class, exactly as a static `instanceof` would.
 */
const apiErrorClasses = new Set<ErrorClass>();
const connectionErrorClasses = new Set<ErrorClass>();

export function registerSdkErrors(apiError: ErrorClass, connectionError: ErrorClass): void {
  apiErrorClasses.add(apiError);
  connectionErrorClasses.add(connectionError);
}

function isInstance(error: unknown, classes: ReadonlySet<ErrorClass>): boolean {
  for (const type of classes) if (error instanceof type) return true;
  return false;
}

function isSdkApiError(error: unknown): error is SdkApiError {
  return isInstance(error, apiErrorClasses);
}

function isSdkConnectionError(error: unknown): boolean {
  return isInstance(error, connectionErrorClasses);
}

/** Codes the providers use for "no more money": waiting does not help. */
const QUOTA_CODES = new Set([
  'insufficient_quota',
  'enforced_spend_limit_reached',
  'billing_hard_limit_reached',
]);

function serverMessage(error: { error?: unknown; message: string }): string {
  const body = error.error as { message?: unknown; error?: { message?: unknown } } | undefined;
  const message = body?.error?.message ?? body?.message;
  return typeof message === 'string' && message !== '' ? message : error.message;
}

function errorCode(error: { error?: unknown }): string | undefined {
  const body = error.error as
    | {
        code?: unknown;
        error?: { code?: unknown; details?: { error_code?: unknown } };
        details?: { error_code?: unknown };
      }
    | undefined;
  const code =
    body?.error?.details?.error_code ?? body?.details?.error_code ?? body?.code ?? body?.error?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The request itself or the key is wrong: sending it again cannot help. */
const NEVER_RETRIED = new Set([400, 401, 403, 404, 413, 422]);

const STATUS_CODES: Record<number, XsbErrorCode> = {
  400: 'bad_request',
  401: 'auth',
  403: 'auth',
  404: 'not_found',
  408: 'timeout',
  409: 'conflict',
  413: 'too_large',
  422: 'bad_request',
  429: 'rate_limited',
  529: 'overloaded',
};

/** Sorts what an SDK call threw into retry or stop; `timedOut`: xsb's own per-attempt timer fired. */
export function classifyFailure(error: unknown, timedOut: boolean): Failure {
  if (timedOut) return { retryable: true, code: 'timeout', reason: 'no answer within the timeout' };
  if (isSdkApiError(error) && !isSdkConnectionError(error) && typeof error.status === 'number') {
    const failure = failureFromStatus(error.status, serverMessage(error), errorCode(error));
    const headers = error.headers;
    const wait = retryAfterMs(headers);
    // Providers may say outright whether a retry can help; that beats the status rule, except that
    // a rejected request or key, or a spent quota, is never sent again whatever a header says.
    const should = headers?.get('x-should-retry');
    if (
      failure.code !== 'quota' &&
      !NEVER_RETRIED.has(error.status) &&
      (should === 'true' || should === 'false')
    )
      failure.retryable = should === 'true';
    return { ...failure, ...(wait !== undefined ? { retryAfterMs: wait } : {}) };
  }
  if (isSdkConnectionError(error)) {
    const timeout = /timed? ?out/i.test((error as Error).message);
    return {
      retryable: true,
      code: timeout ? 'timeout' : 'connection',
      reason: timeout ? 'no answer within the timeout' : `connection failed (${describeCause(error)})`,
    };
  }
  if (error instanceof MalformedAnswerError || error instanceof SyntaxError) {
    return {
      retryable: true,
      code: 'malformed_answer',
      reason: `the answer was not a usable completion (${error.message})`,
    };
  }
  // Every transport failure reaches here as the SDKs' APIConnectionError (they wrap what fetch
  // throws, resets mid-body included, since bodies are buffered inside fetch). Anything else is a
  // fault in the request or in xsb itself: sending it again cannot help, and calling it a
  // connection failure would hide it.
  return { retryable: false, code: 'unexpected', reason: `unexpected failure (${describeCause(error)})` };
}

/** A failure an HTTP status stands for (an online answer's, or a batch entry's), retried by the status rule. */
export function failureFromStatus(status: number, message: string, errorCode?: string): Failure {
  const quota = errorCode !== undefined && QUOTA_CODES.has(errorCode);
  return {
    retryable: !quota && !NEVER_RETRIED.has(status) && isRetryableStatus(status),
    code: quota ? 'quota' : (STATUS_CODES[status] ?? (status >= 500 ? 'server_error' : 'http_error')),
    status,
    // A proxy may answer with a whole HTML page; a message needs only its start.
    reason: `HTTP ${status}: ${message.length > 500 ? `${message.slice(0, 500)}…` : message}`,
  };
}

function describeCause(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth += 1) {
    const code = (current as NodeJS.ErrnoException).code;
    parts.push(code ? `${current.message} [${code}]` : current.message);
    current = current.cause;
  }
  return [...new Set(parts)].join(': ') || String(error);
}

import { describeError, isDiskFull, isXsbError } from '@xsb/core';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** An HTTP refusal with the API's one error shape `{error: {code, message}}`. */
export class ApiHttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const invalidField = (message: string) => new ApiHttpError(400, 'invalid_field', message);
export const notFound = (message: string) => new ApiHttpError(404, 'not_found', message);

/** Input error codes of @xsb/core and @xsb/jobs answered with another status than 400. */
const STATUS_BY_CODE: Record<string, ContentfulStatusCode> = {
  unsupported_media_type: 415,
  empty_file: 415,
  not_a_deck: 415,
  encrypted: 415,
  corrupt_zip: 415,
  zip64: 415,
  zip_too_large: 413,
};

// A client sees a fixed sentence for a server-side fault, never the OS error or a path.
const INTERNAL_MESSAGE =
  'the server failed to answer this request; its log has the detail under the request id';

/** A fault of the server met while answering: the client gets `status` and a fixed message, the log the detail. */
export class ServerFault extends Error {
  constructor(
    readonly fault: unknown,
    readonly status: 500 | 503 | 507 = 500,
    readonly code = 'internal',
    readonly publicMessage = INTERNAL_MESSAGE,
  ) {
    super(describeError(fault));
  }
}

/** The API error for anything a handler threw: client faults by code, anything else a bare 500. */
export function toApiError(error: unknown): ApiHttpError {
  if (error instanceof ApiHttpError) return error;
  if (error instanceof ServerFault)
    return new ApiHttpError(
      error.status,
      error.code,
      error.publicMessage,
      error.status === 503 ? { 'Retry-After': '5' } : {},
    );
  if (isDiskFull(error)) return diskFullError();
  if (isXsbError(error) && error.code === 'queue_unavailable')
    return new ApiHttpError(503, 'queue_unavailable', 'the job queue does not answer; retry later', {
      'Retry-After': '5',
    });
  if (isXsbError(error) && error.kind === 'input')
    return new ApiHttpError(STATUS_BY_CODE[error.code] ?? 400, error.code, error.message);
  return new ApiHttpError(500, 'internal', INTERNAL_MESSAGE);
}

export function diskFullError(): ApiHttpError {
  return new ApiHttpError(507, 'insufficient_storage', "the server's disk is full; retry later", {
    'Retry-After': '30',
    Connection: 'close',
  });
}

/** The one error shape `{error: {code, message, request_id}}`, with the error's headers. */
export function errorResponse(c: Context, error: ApiHttpError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  const requestId = c.get('requestId') as string | undefined;
  return c.json(
    {
      error: { code: error.code, message: error.message, ...(requestId ? { request_id: requestId } : {}) },
    },
    error.status,
  );
}

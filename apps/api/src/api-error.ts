import { describeError, isXsbError } from '@xsb/core';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** An HTTP refusal with the API's one error shape `{error: {code, message}}`. */
export class ApiHttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** Input error codes of @xsb/core and @xsb/jobs, by the status they answer. */
const STATUS_BY_CODE: Record<string, ContentfulStatusCode> = {
  invalid_field: 400,
  unknown_case: 400,
  unknown_audience: 400,
  unknown_instance: 400,
  judge_unavailable: 400,
  unsafe_path_part: 400,
  unsupported_media_type: 415,
  empty_file: 415,
  not_a_deck: 415,
  encrypted: 415,
  corrupt_zip: 415,
  zip64: 415,
  zip_too_large: 413,
};

/** The API error for anything a handler threw: known input errors by code, the rest a 500 without internals. */
export function toApiError(error: unknown): ApiHttpError {
  if (error instanceof ApiHttpError) return error;
  if (isXsbError(error) && error.kind === 'input' && STATUS_BY_CODE[error.code])
    return new ApiHttpError(STATUS_BY_CODE[error.code]!, error.code, error.message);
  if (isXsbError(error) && error.kind === 'input') return new ApiHttpError(400, error.code, error.message);
  return new ApiHttpError(500, 'internal', `the server failed: ${describeError(error)}`);
}

export function errorResponse(c: Context, error: ApiHttpError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json({ error: { code: error.code, message: error.message, ...error.extra } }, error.status);
}

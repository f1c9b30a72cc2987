/**
 * One error hierarchy for all of xsb. Every error carries a stable `code`, a message a user can act
 * on, an optional `cause`, whether retrying could help, and a `kind` that apps map to exit codes:
 * `usage` and `config` stop the run before any work (exit 2); `input` fails one row (exit 1);
 * `internal` is a bug.
 */
export type XsbErrorKind = 'usage' | 'config' | 'input' | 'provider' | 'internal';

export interface XsbErrorOptions {
  cause?: unknown;
  retryable?: boolean;
  /** The file the error is about, when there is one; it leads the message. */
  file?: string;
  details?: Record<string, unknown>;
}

/**
 * Marks every xsb error across copies of this module (two installed versions of @xsb/core, a bundled
 * copy): `Symbol.for` is one symbol per process, where `instanceof` knows only its own class.
 */
const XSB_ERROR = Symbol.for('xsb.error');

export class XsbError extends Error {
  readonly [XSB_ERROR] = true;
  readonly code: string;
  readonly kind: XsbErrorKind;
  readonly retryable: boolean;
  readonly file: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(kind: XsbErrorKind, code: string, message: string, options: XsbErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.kind = kind;
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.file = options.file;
    this.details = options.details;
  }
}

/** A bad flag, argument or command: the user typed something we cannot do. */
export class UsageError extends XsbError {
  constructor(message: string, options: XsbErrorOptions & { code?: string } = {}) {
    super('usage', options.code ?? 'usage', message, options);
  }
}

/** Missing key, unreadable config file, unknown judge: nothing can run until the user fixes it. */
export class ConfigError extends XsbError {
  constructor(message: string, options: XsbErrorOptions & { code?: string } = {}) {
    super('config', options.code ?? 'config', message, options);
  }
}

/**
 * One input (a file, a row, a deck) cannot be used. The run records it and goes on with the rest.
 * The message starts with the file when one is given, so users see `<file>: <reason>`.
 */
export class InputError extends XsbError {
  constructor(message: string, options: XsbErrorOptions & { code?: string } = {}) {
    super('input', options.code ?? 'input', options.file ? `${options.file}: ${message}` : message, options);
  }
}

/** A record failed schema validation; names the file, the line (for JSONL) and the field. */
export class ValidationError extends InputError {
  readonly line: number | undefined;
  readonly field: string | undefined;

  constructor(
    reason: string,
    where: { file?: string; line?: number; field?: string },
    options: Omit<XsbErrorOptions, 'file'> = {},
  ) {
    const location = where.file
      ? `${where.file}${where.line === undefined ? '' : `:${where.line}`}`
      : undefined;
    const fieldPart = where.field ? `field "${where.field}": ` : '';
    super(`${fieldPart}${reason}`, {
      ...options,
      code: 'validation',
      ...(location ? { file: location } : {}),
    });
    this.line = where.line;
    this.field = where.field;
  }
}

/** A model provider failed (after retries where retrying made sense). */
export class ProviderError extends XsbError {
  readonly provider: string;
  readonly status: number | undefined;

  constructor(
    provider: string,
    message: string,
    options: XsbErrorOptions & { code?: string; status?: number } = {},
  ) {
    super('provider', options.code ?? 'provider', message, options);
    this.provider = provider;
    this.status = options.status;
  }
}

/** Something that should never happen: a bug in xsb, not in the user's input. */
export class InternalError extends XsbError {
  constructor(message: string, options: XsbErrorOptions = {}) {
    super('internal', 'internal', message, options);
  }
}

/** True for an xsb error from any copy of @xsb/core (by its `Symbol.for` marker, not `instanceof`). */
export function isXsbError(error: unknown): error is XsbError {
  return (
    typeof error === 'object' && error !== null && (error as { [XSB_ERROR]?: unknown })[XSB_ERROR] === true
  );
}

/** Exit codes shared by every app: 2 for usage/configuration errors, 1 for row failures and the rest. */
export function exitCodeFor(error: unknown): 1 | 2 {
  if (isXsbError(error) && (error.kind === 'usage' || error.kind === 'config')) return 2;
  // An authentication failure stops the whole run before more work: treat it like configuration.
  if (isXsbError(error) && error.kind === 'provider') {
    const status = (error as ProviderError).status;
    if (status === 401 || status === 403) return 2;
  }
  return 1;
}

/** A one-line message for users: the XsbError message, or the bare message of anything else. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** The one error hierarchy of xsb; libraries decide by `kind`, apps map it to exit codes. */
export type XsbErrorKind = 'usage' | 'config' | 'input' | 'provider' | 'internal';

/** Codes are visible (failed jobs, API error bodies, ledgers): one is never renamed, only added. */
export const XSB_ERROR_CODES = [
  // The defaults of each kind, for errors no more specific code describes.
  'usage',
  'config',
  'input',
  'provider',
  'internal',
  // Files and folders (every package): a path that does not exist is `missing_file`, whatever reads it.
  'missing_file',
  'missing_folder',
  'not_a_file',
  'unreadable',
  'empty_file',
  'invalid_utf8',
  'no_text',
  'file_too_large',
  'locked',
  'unsafe_path_part',
  'validation',
  'merge_bad_line',
  'merge_conflict',
  'merge_symlink',
  // Decks, PDFs, archives.
  'unsupported_media_type',
  'not_a_deck',
  'not_pdf',
  'unreadable_deck',
  'corrupt_pdf',
  'corrupt_office',
  'corrupt_zip',
  'zip64',
  'zip_too_large',
  'encrypted',
  'encrypted_pdf',
  'too_large',
  'too_complex',
  'too_many_pages',
  'no_pages',
  'missing_slide_part',
  'ambiguous_deck',
  'deck_name_clash',
  'missing_soffice',
  'convert_failed',
  'render_failed',
  // Sources and cases.
  'no_case_folder',
  'no_source_file',
  'several_source_files',
  'unknown_source_type',
  'source_type_mismatch',
  'source_path_mismatch',
  'case_id_mismatch',
  'stale_source_context',
  'empty_source',
  'unknown_case',
  'unknown_audience',
  'unknown_instance',
  'unknown_system',
  'missing_probe_bank',
  'mineru_not_configured',
  'mineru_network',
  'mineru_timeout',
  'mineru_api_error',
  'mineru_bad_response',
  'mineru_failed',
  'no_text_layer',
  // Deck generators and run sheets.
  'invalid_run_sheet',
  'invalid_import',
  'missing_profile',
  'empty_outline',
  'command_failed',
  'timed_out',
  'no_output',
  'bad_output',
  'format_mismatch',
  // Judges and providers (a provider's `not_found` is its HTTP 404: an unknown model or endpoint).
  'judge_unavailable',
  'judge_cannot_read_images',
  'replay_miss',
  'recorded',
  'structured_answer',
  'malformed_answer',
  'bad_request',
  'auth',
  'not_found',
  'timeout',
  'conflict',
  'rate_limited',
  'overloaded',
  'quota',
  'server_error',
  'http_error',
  'connection',
  'unexpected',
  // Provider batch APIs.
  'batch_submit',
  'batch_poll',
  'batch_results',
  'batch_state',
  'batch_error',
  'batch_deadline',
  'batch_expired',
  'batch_canceled',
  'batch_failed',
  'batch_absent',
  // Jobs and the API.
  'invalid_field',
  'queue_unavailable',
  'worker_lost',
  'insufficient_storage',
  'evaluation_failed',
  'deck_location_conflict',
  'no_api_tokens',
  // Options a caller must set on purpose.
  'sealed_split',
  'batch_unsupported',
  'port_in_use',
] as const;

export type XsbErrorCode = (typeof XSB_ERROR_CODES)[number];

/**
 * The step that makes a missing input, or makes a stale one again, said in library terms. Messages never name a
 * command or a flag (a library user has neither); each app turns a remedy into its own advice (the CLI: the
 * command to type).
 */
export interface Remedy {
  step:
    | 'sources'
    | 'probes'
    | 'weights'
    | 'eval'
    | 'aggregate'
    | 'bench-split'
    | 'anchor-set'
    | 'anchor-check'
    | 'perturb'
    | 'import-decks'
    | 'record-prompts';
  /** The step must redo what exists (the CLI's `--force`). */
  force?: boolean;
  caseLabel?: string;
  run?: string;
  dataDir?: string;
  judge?: string;
  system?: string;
  store?: string;
}

export interface XsbErrorOptions {
  cause?: unknown;
  retryable?: boolean;
  /** The file the error is about, when there is one; it leads the message. */
  file?: string;
  details?: Record<string, unknown>;
  remedy?: Remedy;
}

/** `Symbol.for` marks xsb errors across copies of this module; `instanceof` knows only its own class. */
const XSB_ERROR = Symbol.for('xsb.error');

export class XsbError extends Error {
  readonly [XSB_ERROR] = true;
  readonly code: XsbErrorCode;
  readonly kind: XsbErrorKind;
  readonly retryable: boolean;
  readonly file: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly remedy: Remedy | undefined;

  constructor(kind: XsbErrorKind, code: XsbErrorCode, message: string, options: XsbErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.kind = kind;
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.file = options.file;
    this.details = options.details;
    this.remedy = options.remedy;
  }
}

/** A bad flag, argument or command: the user typed something we cannot do. */
export class UsageError extends XsbError {
  constructor(message: string, options: XsbErrorOptions & { code?: XsbErrorCode } = {}) {
    super('usage', options.code ?? 'usage', message, options);
  }
}

/** Missing key, unreadable config file, unknown judge: nothing can run until the user fixes it. */
export class ConfigError extends XsbError {
  constructor(message: string, options: XsbErrorOptions & { code?: XsbErrorCode } = {}) {
    super('config', options.code ?? 'config', message, options);
  }
}

/** One input (a file, a row, a deck) cannot be used: the run records it and goes on. */
export class InputError extends XsbError {
  constructor(message: string, options: XsbErrorOptions & { code?: XsbErrorCode } = {}) {
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
    options: XsbErrorOptions & { code?: XsbErrorCode; status?: number } = {},
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

/** True for an xsb error from any copy of @xsb/core. */
export function isXsbError(error: unknown): error is XsbError {
  return (
    typeof error === 'object' && error !== null && (error as { [XSB_ERROR]?: unknown })[XSB_ERROR] === true
  );
}

/** Whether an error would fail every other row alike (usage, config, a refused key): the run stops. */
export function stopsTheRun(error: unknown): boolean {
  if (!isXsbError(error)) return false;
  if (error.kind === 'usage' || error.kind === 'config') return true;
  const status = error.kind === 'provider' ? (error as ProviderError).status : undefined;
  return status === 401 || status === 403;
}

/** Exit codes shared by every app: 2 for errors that stop the run, 1 for the rest. */
export function exitCodeFor(error: unknown): 1 | 2 {
  return stopsTheRun(error) ? 2 : 1;
}

/** A one-line message for users: the XsbError message, or the bare message of anything else. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

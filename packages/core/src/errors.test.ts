import { describe, expect, it, vi } from 'vitest';
import {
  ConfigError,
  exitCodeFor,
  InputError,
  isXsbError,
  ProviderError,
  stopsTheRun,
  UsageError,
  ValidationError,
  XSB_ERROR_CODES,
  XsbError,
  type XsbErrorCode,
} from './errors';

describe('error hierarchy', () => {
  it('maps usage and configuration errors to exit 2, row failures to exit 1', () => {
    expect(exitCodeFor(new UsageError('bad flag'))).toBe(2);
    expect(exitCodeFor(new ConfigError('missing OPENAI_API_KEY'))).toBe(2);
    expect(exitCodeFor(new InputError('corrupt', { file: 'a.pdf' }))).toBe(1);
    expect(exitCodeFor(new ProviderError('openai', 'unauthorized', { status: 401 }))).toBe(2);
    expect(exitCodeFor(new ProviderError('openai', 'overloaded', { status: 529, retryable: true }))).toBe(1);
    expect(exitCodeFor(new Error('bug'))).toBe(1);
  });

  it('decides by kind whether an error stops the run (libraries ask this, never the exit code)', () => {
    expect(stopsTheRun(new UsageError('bad flag'))).toBe(true);
    expect(stopsTheRun(new ConfigError('no key'))).toBe(true);
    expect(stopsTheRun(new ProviderError('anthropic', 'key refused', { status: 403, code: 'auth' }))).toBe(
      true,
    );
    expect(stopsTheRun(new ProviderError('anthropic', 'no model', { status: 404, code: 'not_found' }))).toBe(
      false,
    );
    expect(stopsTheRun(new InputError('corrupt', { code: 'missing_file' }))).toBe(false);
    expect(stopsTheRun(new Error('bug'))).toBe(false);
  });

  it('leads an input error with its file and keeps the cause', () => {
    const cause = new Error('inner');
    const error = new InputError('password-protected PDF', { file: 'deck.pdf', cause });
    expect(error.message).toBe('deck.pdf: password-protected PDF');
    expect(error.cause).toBe(cause);
    expect(error.retryable).toBe(false);
  });

  it('carries the remedy apart from the message, which stays in library terms', () => {
    const error = new InputError('no probe bank (generate the probes of this case first)', {
      file: 'probes/a/probes.jsonl',
      code: 'missing_probe_bank',
      remedy: { step: 'probes', caseLabel: 'a' },
    });
    expect(error.remedy).toEqual({ step: 'probes', caseLabel: 'a' });
    expect(error.message).toBe(
      'probes/a/probes.jsonl: no probe bank (generate the probes of this case first)',
    );
    expect(new InputError('x').remedy).toBeUndefined();
  });

  it('formats validation errors as file:line: field', () => {
    const error = new ValidationError('is required but missing', {
      file: 'p.jsonl',
      line: 4,
      field: 'answer',
    });
    expect(error.message).toBe('p.jsonl:4: field "answer": is required but missing');
    expect(error).toBeInstanceOf(InputError);
  });
});

describe('isXsbError across copies of @xsb/core', () => {
  it('knows an error made by another copy of the module (its Symbol.for marker), and nothing else', async () => {
    // A second copy of the module, as a second installed version or a bundle would hold: another class.
    vi.resetModules();
    const other = await import('./errors');
    expect(other.XsbError).not.toBe(XsbError);
    const foreign = new other.ConfigError('from another copy');
    expect(foreign instanceof XsbError).toBe(false);
    expect(isXsbError(foreign)).toBe(true);
    expect(exitCodeFor(foreign)).toBe(2);
    expect(exitCodeFor(new other.ProviderError('openai', 'denied', { status: 401 }))).toBe(2);
    expect(isXsbError(new Error('plain'))).toBe(false);
    expect(isXsbError({ code: 'config', kind: 'config' })).toBe(false);
    expect(isXsbError(null)).toBe(false);
  });
});

describe('error codes', () => {
  it('are a closed list: an unknown code does not typecheck, a listed one does', () => {
    // @ts-expect-error 'file_not_found' is not a code of XSB_ERROR_CODES (the one code is 'missing_file')
    const unknown: XsbErrorCode = 'file_not_found';
    // @ts-expect-error an error constructor takes only listed codes
    const refused = new InputError('gone', { code: 'not_there' });
    const listed: XsbErrorCode = 'missing_file';
    expect([unknown, refused.code, listed]).toEqual(['file_not_found', 'not_there', 'missing_file']);
  });

  it('are unique and snake_case', () => {
    expect(new Set(XSB_ERROR_CODES).size).toBe(XSB_ERROR_CODES.length);
    for (const code of XSB_ERROR_CODES) expect(code).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
  });

  it('default to the kind', () => {
    expect(new UsageError('x').code).toBe('usage');
    expect(new ConfigError('x').code).toBe('config');
    expect(new InputError('x').code).toBe('input');
    expect(new ProviderError('openai', 'x').code).toBe('provider');
    expect(new ValidationError('x', {}).code).toBe('validation');
  });
});

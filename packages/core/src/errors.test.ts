import { describe, expect, it, vi } from 'vitest';
import {
  ConfigError,
  exitCodeFor,
  InputError,
  isXsbError,
  ProviderError,
  UsageError,
  ValidationError,
  XsbError,
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

  it('leads an input error with its file and keeps the cause', () => {
    const cause = new Error('inner');
    const error = new InputError('password-protected PDF', { file: 'deck.pdf', cause });
    expect(error.message).toBe('deck.pdf: password-protected PDF');
    expect(error.cause).toBe(cause);
    expect(error.retryable).toBe(false);
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

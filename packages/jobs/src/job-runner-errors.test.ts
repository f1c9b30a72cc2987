import { describe, expect, it } from 'vitest';
import { fateOfError, withoutAbsolutePaths } from './job-runner';

describe('withoutAbsolutePaths', () => {
  it('cuts every absolute path of a message to its last part, and leaves URLs and relative paths', () => {
    expect(
      withoutAbsolutePaths(
        "/srv/xsb/data/replay/a.jsonl: no completion (record it with --judge record:/srv/xsb/data/replay/a.jsonl, see 'https://example.test/docs/x' or runs/api/x.json; open(/root/.cache/xsb/k))",
      ),
    ).toBe(
      "…/a.jsonl: no completion (record it with --judge record:…/a.jsonl, see 'https://example.test/docs/x' or runs/api/x.json; open(…/k))",
    );
    expect(withoutAbsolutePaths('EEXIST: file already exists, mkdir "/work/data/api/tmp/vm-23050"')).toBe(
      'EEXIST: file already exists, mkdir "…/vm-23050"',
    );
  });
});

describe('fateOfError', () => {
  const full = Object.assign(new Error('write failed'), { code: 'ENOSPC' });
  const state = { canceled: false, attempt: 1, diskAttempts: 3 };
  it('a cancel request wins over any error', () => {
    expect(fateOfError(full, { ...state, canceled: true })).toBe('canceled');
  });
  it('a full disk is retried while attempts are left, then fails the job', () => {
    expect(fateOfError(full, state)).toBe('retry-disk');
    expect(fateOfError(full, { ...state, attempt: 3 })).toBe('disk-stayed-full');
  });
  it('any other error fails the job', () => {
    expect(fateOfError(new Error('bug'), state)).toBe('failed');
  });
});

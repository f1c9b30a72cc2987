import { describe, expect, it } from 'vitest';
import { withoutAbsolutePaths } from './job-runner';

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

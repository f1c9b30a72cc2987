import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { RunLayout, UsageError } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requireProbeBanks } from './require-probe-banks';

let layout: RunLayout;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  const temp = await makeTempDir('xsb-probe-banks-');
  layout = new RunLayout(temp.dir);
  cleanup = temp.cleanup;
});
afterEach(() => cleanup());

async function writeBank(caseLabel: string) {
  await mkdir(dirname(layout.probesFile(caseLabel)), { recursive: true });
  await writeFile(layout.probesFile(caseLabel), '');
}

describe('requireProbeBanks', () => {
  it('is one usage error naming every case when no selected case has a probe bank (weights before probes)', () => {
    const run = () => requireProbeBanks(layout, ['b_case', 'a_case', 'a_case']);
    expect(run).toThrowError(UsageError);
    expect(run).toThrowError(/^no probe bank for cases a_case, b_case: generate the probes first$/);
    expect(() => requireProbeBanks(layout, ['only'])).toThrowError(
      'no probe bank for case only: generate the probes first',
    );
  });

  it('returns the cases without a bank when others have one, and nothing when all have one', async () => {
    await writeBank('a_case');
    expect(requireProbeBanks(layout, ['c_case', 'a_case', 'b_case'])).toEqual(['b_case', 'c_case']);
    expect(requireProbeBanks(layout, ['a_case'])).toEqual([]);
    expect(requireProbeBanks(layout, [])).toEqual([]);
  });
});

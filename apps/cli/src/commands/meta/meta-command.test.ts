import { existsSync } from 'node:fs';
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readJson, readJsonlAll } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { metaAgreementSchema, metaSensitivitySchema, perturbationRecordSchema } from '@xsb/meta';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runXsb, type XsbArgs } from '../../testing-cli';
import { repoFixture } from '../../testing-fixtures';

let root: string;
let cleanup: () => Promise<void>;
const run = (args: XsbArgs) => runXsb(args, { cwd: root, env: { PATH: process.env.PATH ?? '' } });
const RAFT =
  'data/runs/demo/decks/xsb-baseline/audience_agnostic/all/cs_raft_consensus/cs_raft_consensus.pptx';

beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-cli-meta-'));
  expect((await run('demo --out .')).code).toBe(0);
  await cp(repoFixture('meta', 'rubric'), join(root, 'data', 'rubric'), { recursive: true });
}, 120_000);
afterAll(async () => cleanup());

describe('xsb meta', () => {
  it('perturb writes decks and records, and refuses bad flags before any work (exit 2)', async () => {
    const done = await run([
      'meta',
      'perturb',
      '--deck',
      RAFT,
      '--out',
      'p/raft',
      '--kinds',
      'corrupt_numbers,remove_citations',
      '--severity',
      '0.5',
      '--seed',
      '3',
    ]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('corrupt_numbers   0.5');
    expect(done.stdout).toContain('skipped: the content slides hold no source reference');
    const records = await readJsonlAll(join(root, 'p/raft/perturbations.jsonl'), perturbationRecordSchema);
    expect(records.map((record) => [record.kind, record.seed, Boolean(record.output)])).toEqual([
      ['corrupt_numbers', 3, true],
      ['remove_citations', 3, false],
    ]);
    for (const args of [
      ['meta', 'perturb', '--deck', RAFT, '--out', 'x', '--kinds', 'bogus'],
      ['meta', 'perturb', '--deck', RAFT, '--out', 'x', '--severity', '1.5'],
      ['meta', 'perturb', '--deck', 'missing.pptx', '--out', 'x'],
      ['meta', 'perturb', '--out', 'x'],
    ]) {
      const refused = await run(args);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toMatch(/^ERROR: /);
      expect(existsSync(join(root, 'x'))).toBe(false);
    }
  });

  it('sensitivity writes the table for the offline judge and says what it rests on', async () => {
    const result = await run([
      'meta',
      'sensitivity',
      '--perturbations',
      'p',
      '--run',
      'demo',
      '--data',
      'data',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      'judge lexical (offline: no model): 1 original and 1 perturbed decks of run demo',
    );
    expect(result.stdout).toMatch(/xslides\.correctness\s+corrupt_numbers\s+sensitivity 1\.00/);
    const file = join(root, 'data/runs/demo@meta/meta/sensitivity.json');
    const json = await readJson(file, metaSensitivitySchema);
    expect(json.judge).toBe('lexical');
    expect(await readFile(join(root, 'data/runs/demo@meta/meta/report.md'), 'utf8')).toContain(
      '| `xslides.correctness` |',
    );
    const bad = await run(['meta', 'sensitivity', '--perturbations', 'nowhere']);
    expect(bad.code).toBe(2);
    const badFamily = await run([
      'meta',
      'sensitivity',
      '--perturbations',
      'p',
      '--evaluators',
      'xslides,vibes',
    ]);
    expect(badFamily.code).toBe(2);
    expect(badFamily.stderr).toContain('unknown "vibes"');
  }, 120_000);

  it('agreement compares two evaluation trees', async () => {
    const result = await run([
      'meta',
      'agreement',
      '--a',
      'data/runs/demo/evaluations',
      '--b',
      'data/runs/demo@meta/evaluations',
      '--out',
      'agreement.json',
      '--resamples',
      '200',
    ]);
    expect(result.code, result.stderr).toBe(0);
    // The trees share no relative path (the derived run names its systems <system>@<variant>).
    expect(result.stdout).toContain('0 items in both');
    const self = await run([
      'meta',
      'agreement',
      '--a',
      'data/runs/demo/evaluations',
      '--b',
      'data/runs/demo/evaluations',
      '--json',
      '--resamples',
      '100',
    ]);
    const parsed = metaAgreementSchema.parse(JSON.parse(self.stdout));
    expect(parsed.overall.agreement.value).toBe(1);
    expect(parsed.classes.map((row) => row.class)).toEqual(['claim_label', 'probe_coverage']);
    expect(existsSync(join(root, 'agreement.json'))).toBe(true);
  }, 60_000);

  it('anchors freeze and check (exit 0 when the judge passes)', async () => {
    const frozen = await run(['meta', 'anchors', 'freeze', '--run', 'demo', '--size', '2']);
    expect(frozen.code, frozen.stderr).toBe(0);
    expect(frozen.stdout).toMatch(/anchor set demo: 2 decks, \d+ verdicts of judge lexical/);
    const again = await run(['meta', 'anchors', 'freeze', '--run', 'demo']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('--force');
    const check = await run(['meta', 'anchors', 'check', '--judge', 'lexical']);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toContain('kappa 1.000');
    expect(check.stdout).toContain('PASSED');
    expect((await run(['meta', 'anchors', 'check', '--min-kappa', '7'])).code).toBe(2);
  }, 120_000);
});

import { existsSync } from 'node:fs';
import { cp, readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { readJson } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { runDemo } from '@xsb/eval';
import { metaRetestSchema } from '@xsb/meta';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runXsb } from '../../testing-cli';
import { repoFixture } from '../../testing-fixtures';

let root: string;
let cleanup: () => Promise<void>;

/** Every file under `dir` with its content, timestamps blanked (they differ between any two runs). */
async function tree(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const walk = async (at: string) => {
    for (const entry of await readdir(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) await walk(path);
      else
        files.set(
          relative(dir, path),
          (await readFile(path, 'utf8'))
            .replace(/"(created_at|time)": ?"[^"]*"/g, '"$1":"<time>"')
            .replace(/"latencyMs": ?[\d.]+/g, '"latencyMs":0'),
        );
    }
  };
  await walk(dir);
  return files;
}

beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-retest-cli-'));
  await runDemo({ outDir: join(root, 'demo') });
  for (const copy of ['plain', 'one', 'three'])
    await cp(join(root, 'demo'), join(root, copy), { recursive: true });
}, 180_000);
afterAll(() => cleanup());

const evaluate = (copy: string, ...extra: string[]) =>
  runXsb(['eval', '--data', `${copy}/data`, '--run', 'demo', '--force', ...extra], { cwd: root });

describe('xsb eval --repeats', () => {
  it('--repeats 1 is the ordinary evaluation, byte for byte; --repeats 3 leaves every ordinary file as it was', async () => {
    const plain = await evaluate('plain');
    const one = await evaluate('one', '--repeats', '1');
    expect(one.code).toBe(0);
    expect(one.stdout).toBe(plain.stdout);
    const plainTree = await tree(join(root, 'plain', 'data'));
    expect(await tree(join(root, 'one', 'data'))).toEqual(plainTree);

    const three = await evaluate('three', '--repeats', '3');
    expect(three.code).toBe(0);
    const threeTree = await tree(join(root, 'three', 'data'));
    const ledger = 'runs/demo/usage_ledger.jsonl';
    for (const [file, content] of plainTree)
      if (file !== ledger) expect(threeTree.get(file), file).toBe(content);
    const added = [...threeTree.keys()].filter((file) => !plainTree.has(file));
    expect(added).toContain('runs/demo/evaluations/retest.json');
    expect(added.filter((file) => file.endsWith('probe_scores.repeat-2.jsonl'))).toHaveLength(21);
    // Each repeat of each deck's correctness is its own cache entry: 13 decks × 2 repeats.
    const cacheEntries = added.filter((file) => file.startsWith('runs/demo/correctness_cache/'));
    expect(cacheEntries).toHaveLength(26);
    const others = added.filter((file) => !cacheEntries.includes(file));
    expect(others.filter((file) => !/(\.repeat-[12]\.(jsonl|json|log)|retest\.json)$/.test(file))).toEqual(
      [],
    );
    // The repeats' work is on the ledger too (lexical: zero-token lines).
    expect(threeTree.get(ledger)!.split('\n').length).toBeGreaterThan(
      plainTree.get(ledger)!.split('\n').length,
    );
  }, 180_000);

  it('says the offline judge flips nothing because it cannot, not because it is stable', async () => {
    const result = await evaluate('three', '--repeats', '3');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/test–retest: judge lexical asked 3 times/);
    expect(result.stdout).toMatch(
      /\| probe_coverage \| \d+ \| 0 \| 0\.000 \[0\.000, 0\.\d{3}\] \| 1\.000 \|/,
    );
    expect(result.stdout).toMatch(/\| claim_label \| \d+ \| 0 \| 0\.000 /);
    expect(result.stdout).toContain('flip rate is 0 by construction');
    expect(result.stdout).toContain('says nothing about how stable a model judge would be');
    const retest = await readJson(
      join(root, 'three', 'data', 'runs', 'demo', 'evaluations', 'retest.json'),
      metaRetestSchema,
    );
    expect(retest).toMatchObject({ kind: 'eval', judge: 'lexical', deterministic: true, repeats: 3 });
    // 13 decks (agnostic decks once, not per audience), from 21 jobs.
    expect(retest.scope).toMatchObject({ run: 'demo', jobs: 21, decks: 13 });
    expect(retest.overall.n).toBeGreaterThan(100);
    expect(retest.overall.flip_rate).toBe(0);
  }, 120_000);

  it('refuses --repeats 0 before any work', async () => {
    const result = await evaluate('plain', '--repeats', '0');
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('ERROR: --repeats must be an integer >= 1, got "0"\n');
  });
});

describe('xsb rubric eval --repeats', () => {
  it('writes the repeats beside the evaluation and says that offline no item was asked of a judge', async () => {
    await cp(repoFixture('meta', 'rubric'), join(root, 'plain', 'data', 'rubric'), { recursive: true });
    const deck =
      'plain/data/runs/demo/decks/xsb-baseline/audience_agnostic/all/cs_raft_consensus/cs_raft_consensus.pptx';
    const instance = 'plain/data/rubric/cs_raft_consensus/instance.yaml';
    const result = await runXsb(
      ['rubric', 'eval', '--instance', instance, '--deck', deck, '--repeats', '2'],
      {
        cwd: root,
      },
    );
    expect(result.code).toBe(0);
    expect(existsSync(join(root, `${deck}.xsb_rubric_lexical.repeat-1.json`))).toBe(true);
    expect(existsSync(join(root, `${deck}.xsb_rubric_lexical.repeat-2.json`))).toBe(false);
    const retest = await readJson(join(root, `${deck}.xsb_rubric_lexical.retest.json`), metaRetestSchema);
    expect(retest).toMatchObject({ kind: 'rubric', deterministic: true, repeats: 2, classes: [] });
    expect(retest.overall).toMatchObject({ n: 0, flip_rate: null });
    expect(result.stdout).toContain('no item was asked of a judge at all');
  }, 60_000);
});

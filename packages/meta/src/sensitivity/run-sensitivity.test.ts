import { existsSync } from 'node:fs';
import { cp, readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunLayout, readJson, readJsonlAll } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { runDemo } from '@xsb/eval';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { perturbDeck } from '../perturb/perturb-deck';
import { metaScoreRowSchema, metaSensitivitySchema } from '../schemas/meta-sensitivity';
import { runSensitivity } from './run-sensitivity';

const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../fixtures');
let dir: string;
let cleanup: () => Promise<void>;
let dataDir: string;
const decks = () => new RunLayout(dataDir).decksRoot('demo');
const RAFT = () =>
  join(decks(), 'xsb-baseline/audience_agnostic/all/cs_raft_consensus/cs_raft_consensus.pptx');
const NOTEBOOK = () =>
  join(decks(), 'notebooklm/audience_agnostic/all/energy_heat_pump_pilot/energy_heat_pump_pilot.pdf');

beforeAll(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-meta-sensitivity-'));
  ({ dataDir } = await runDemo({ outDir: join(dir, 'demo') }));
  await cp(join(fixtures, 'meta', 'rubric'), join(dataDir, 'rubric'), { recursive: true });
  const kinds = ['corrupt_numbers', 'shrink_fonts', 'duplicate_slides'] as const;
  await perturbDeck({ deck: RAFT(), outDir: join(dir, 'p', 'raft'), kinds, severities: [0.5] });
  await perturbDeck({ deck: NOTEBOOK(), outDir: join(dir, 'p', 'notebook'), kinds, severities: [0.5] });
}, 120_000);
afterAll(async () => cleanup());

describe('runSensitivity with the offline judge on demo decks', () => {
  it('scores originals and perturbations and writes sensitivity.json, report.md and scores.jsonl', async () => {
    const { result, files } = await runSensitivity({ dataDir, run: 'demo', perturbations: [join(dir, 'p')] });
    expect(await readJson(files.sensitivity, metaSensitivitySchema)).toEqual(result);
    const rows = await readJsonlAll(files.scores, metaScoreRowSchema);
    // Two originals, the PPTX in three kinds, the PDF only duplicated (its text kinds are skipped).
    expect(new Set(rows.map((row) => `${row.deck}|${row.variant}`)).size).toBe(6);
    expect(result.original_decks).toBe(2);
    expect(result.perturbed_decks).toBe(4);
    expect(result.skipped.map((row) => row.kind).sort()).toEqual(['corrupt_numbers', 'shrink_fonts']);
    expect(result.failures).toEqual([]);

    const summary = (evaluator: string, kind: string) =>
      result.summary.find((row) => row.evaluator === evaluator && row.kind === kind)!;
    expect(summary('xslides.correctness', 'corrupt_numbers').sensitivity).toMatchObject({ n: 1, k: 1 });
    expect(summary('layout.min_font_size', 'shrink_fonts').sensitivity).toMatchObject({ n: 1, k: 1 });
    // The demo instance's design checklist holds the min_font_size check: decided offline.
    expect(summary('rubric.design', 'shrink_fonts').sensitivity).toMatchObject({ n: 1, k: 1 });
    expect(summary('xslides.efficiency_slide', 'duplicate_slides').sensitivity).toMatchObject({ n: 2, k: 2 });
    expect(summary('xslides.coverage', 'duplicate_slides').specificity).toMatchObject({ n: 2, k: 2 });

    const evaluator = (id: string) => result.evaluators.find((item) => item.id === id)!;
    expect(evaluator('rubric.total')).toMatchObject({ applicable: false });
    expect(evaluator('rubric.total').reason).toMatch(/offline judge lexical/);
    expect(evaluator('holistic.overall').reason).toMatch(/needs a model judge/);
    expect(evaluator('layout.slide_count').applicable).toBe(true);

    const report = await readFile(files.report, 'utf8');
    expect(report).toContain('Judge `lexical` (offline, deterministic: no model)');
    expect(report).toMatch(/\| `layout.min_font_size` \|.*\| 1\.00 (✓ )?\(1\) \|/);
    expect(report).toContain('`holistic.overall`: the holistic baseline needs a model judge');
  }, 120_000);

  it('is deterministic and reuses every finished evaluation on a second run', async () => {
    const ledger = new RunLayout(dataDir).usageLedgerFile('demo@meta');
    const before = (await readFile(ledger, 'utf8')).split('\n').length;
    const first = await readFile(join(dataDir, 'runs', 'demo@meta', 'meta', 'sensitivity.json'));
    const { files } = await runSensitivity({ dataDir, run: 'demo', perturbations: [join(dir, 'p')] });
    expect((await readFile(files.sensitivity)).equals(first)).toBe(true);
    expect((await readFile(ledger, 'utf8')).split('\n').length).toBe(before);
  }, 120_000);

  it('keeps exactly the current set of decks in the derived run', async () => {
    await runSensitivity({
      dataDir,
      run: 'demo',
      perturbations: [join(dir, 'p', 'raft')],
      outDir: join(dir, 'raft-only'),
    });
    const systems = await readdir(new RunLayout(dataDir).decksRoot('demo@meta'));
    expect(systems.sort()).toEqual([
      'xsb-baseline@corrupt_numbers@0.5@12',
      'xsb-baseline@duplicate_slides@0.5@12',
      'xsb-baseline@original',
      'xsb-baseline@shrink_fonts@0.5@12',
    ]);
    expect(existsSync(join(dir, 'raft-only', 'report.md'))).toBe(true);
  }, 120_000);

  it('refuses perturbations of decks that are not in the run, naming them, and an unknown folder', async () => {
    const elsewhere = join(dir, 'p-elsewhere');
    await perturbDeck({
      deck: join(fixtures, 'decks', 'cs_raft_consensus.baseline.pptx'),
      outDir: elsewhere,
      kinds: ['shrink_fonts'],
      severities: [1],
    });
    await expect(
      runSensitivity({ dataDir, run: 'demo', perturbations: [elsewhere], outDir: join(dir, 'x') }),
    ).rejects.toThrow(/not a deck of run "demo"|no perturbed deck/);
    await expect(
      runSensitivity({ dataDir, run: 'demo', perturbations: [join(dir, 'missing')] }),
    ).rejects.toThrow(/does not exist/);
  }, 60_000);

  it('scores the design metrics when asked: shrunk fonts leave more whitespace, and a rerun reads them from the cache', async () => {
    const outDir = join(dir, 'design-out');
    const options = {
      dataDir,
      run: 'demo',
      perturbations: [join(dir, 'p')],
      families: ['layout', 'design'] as const,
      outDir,
    };
    const { result, files } = await runSensitivity(options);
    expect(result.failures).toEqual([]);
    const design = result.evaluators.filter((item) => item.family === 'design');
    expect(design.map((item) => item.id)).toContain('design.whitespace');
    expect(design.every((item) => item.applicable)).toBe(true);
    expect(result.evaluators.find((item) => item.id === 'xslides.coverage')!.reason).toMatch(/design/);
    const rows = await readJsonlAll(files.scores, metaScoreRowSchema);
    const whitespace = (kind: string | null) =>
      rows.find(
        (row) =>
          row.evaluator === 'design.whitespace' && row.kind === kind && row.deck.includes('xsb-baseline'),
      )!.value!;
    expect(whitespace('shrink_fonts')).toBeGreaterThan(whitespace(null));
    // Design metrics carry no expectation: the report publishes what each kind does to them.
    const cell = result.cells.find(
      (item) => item.evaluator === 'design.whitespace' && item.kind === 'shrink_fonts',
    )!;
    expect(cell).toMatchObject({ expected: 'none', n: 1 });
    // One cache beside each of the derived run's six decks.
    const derivedDecks = new RunLayout(dataDir).decksRoot('demo@meta');
    const caches = (await readdir(derivedDecks, { recursive: true }))
      .filter((name) => name.endsWith('.xsb_design.json'))
      .sort();
    expect(caches).toHaveLength(6);
    const cache = join(derivedDecks, caches[0]!);
    const measured = (await stat(cache)).mtimeMs;
    const again = await runSensitivity(options);
    expect(again.result.cells).toEqual(result.cells);
    expect((await stat(cache)).mtimeMs).toBe(measured);
  }, 300_000);
});

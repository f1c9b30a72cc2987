import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Deck, InputError, readJsonlAll, ZipArchive } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { countVisibleWords, findSoffice, readDeck, runSofficeToPdf } from '@xsb/decks';
import { buildTestPptx } from '@xsb/decks/testing';
import { runLayoutChecks } from '@xsb/rubric';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PERTURBATION_KINDS,
  type PerturbationRecord,
  perturbationRecordSchema,
} from '../schemas/meta-perturbation';
import { perturbDeck } from './perturb-deck';
import { NUMBER_PATTERN } from './text-patterns';

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = resolve(here, '../../../../fixtures');
const corpus = resolve(here, '../../../../../shared/corpus/pptx');
const FIXTURE_PPTX = join(fixtures, 'decks', 'cs_raft_consensus.baseline.pptx');
const FIXTURE_PDF = join(fixtures, 'decks', 'notebooklm', 'cs_raft_consensus.pdf');

let dir: string;
let cleanup: () => Promise<void>;
let original: Deck;
let records: PerturbationRecord[];
const outDir = () => join(dir, 'pptx');

function record(kind: string, severity = 0.5): PerturbationRecord {
  const found = records.find((item) => item.kind === kind && item.severity === severity);
  if (!found) throw new Error(`no record for ${kind} ${severity}`);
  return found;
}

async function output(item: PerturbationRecord, root = outDir()): Promise<Deck> {
  expect(item.output, `${item.kind}: ${item.skipped ?? item.error}`).not.toBeNull();
  return readDeck(join(root, item.output!));
}

const texts = (deck: Deck) => deck.slides.map((slide) => slide.visible_text);

beforeAll(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-meta-perturb-'));
  original = await readDeck(FIXTURE_PPTX);
  ({ records } = await perturbDeck({ deck: FIXTURE_PPTX, outDir: outDir(), seed: 5 }));
}, 120_000);
afterAll(async () => cleanup());

describe('perturbDeck on the fixture PPTX (8 slides: title, bullets, a table, a chart, notes)', () => {
  it('writes one validated record per kind and severity, each deck where the record says', async () => {
    expect(records).toHaveLength(PERTURBATION_KINDS.length * 3);
    const lines = await readJsonlAll(join(outDir(), 'perturbations.jsonl'), perturbationRecordSchema);
    expect(lines).toEqual(records);
    for (const item of records) {
      expect(item.error, `${item.kind} ${item.severity}`).toBeUndefined();
      expect(item.seed).toBe(5);
      expect(resolve(outDir(), item.original)).toBe(FIXTURE_PPTX);
      expect(item.expected.lower.length).toBeGreaterThan(0);
      if (item.output) {
        expect(item.output).toBe(`${item.kind}/${item.severity}/cs_raft_consensus.baseline.pptx`);
        expect(existsSync(join(outDir(), item.output))).toBe(true);
        expect(item.changed_units).toBeGreaterThanOrEqual(1);
      }
    }
    // The fixture deck cites no sources: the kind is recorded as skipped, never silently absent.
    expect(record('remove_citations').skipped).toMatch(/no source reference/);
  });

  it('changes more units at higher severity (at least one)', () => {
    for (const kind of ['drop_slides', 'shrink_fonts', 'pad_words', 'duplicate_slides']) {
      const counts = [0.1, 0.25, 0.5].map((severity) => record(kind, severity).changed_units);
      expect(counts[0]).toBeGreaterThanOrEqual(1);
      expect(counts[2]).toBeGreaterThan(counts[0]!);
      expect(counts[2]).toBe(Math.round(0.5 * record(kind, 0.5).eligible_units));
    }
  });

  it('drop_slides removes exactly the recorded content slides', async () => {
    const item = record('drop_slides');
    const deck = await output(item);
    const dropped = new Set(item.changes.map((change) => change.slide - 1));
    expect(dropped.has(0)).toBe(false);
    expect(deck.slide_count).toBe(original.slide_count - dropped.size);
    expect(texts(deck)).toEqual(texts(original).filter((_, position) => !dropped.has(position)));
  });

  it('shuffle_slides reorders content slides only and keeps every slide', async () => {
    const item = record('shuffle_slides');
    const deck = await output(item);
    expect(texts(deck)[0]).toBe(texts(original)[0]);
    expect([...texts(deck)].sort()).toEqual([...texts(original)].sort());
    expect(texts(deck)).not.toEqual(texts(original));
    for (const change of item.changes) {
      expect(texts(deck)[Number(change.new) - 1]).toBe(texts(original)[Number(change.old) - 1]);
    }
  });

  it('duplicate_slides repeats slides (with their notes) right after the original', async () => {
    const item = record('duplicate_slides');
    const deck = await output(item);
    expect(deck.slide_count).toBe(original.slide_count + item.changed_units);
    for (const slide of deck.slides.slice(1)) {
      const copyOfPrevious = deck.slides[slide.index - 2]!;
      if (slide.visible_text !== copyOfPrevious.visible_text) continue;
      expect(slide.notes).toBe(copyOfPrevious.notes);
    }
    const pairs = deck.slides.filter(
      (slide, position) => position > 0 && slide.visible_text === deck.slides[position - 1]!.visible_text,
    );
    expect(pairs).toHaveLength(item.changed_units);
  });

  it('corrupt_numbers changes the value of the recorded numbers, nothing else', async () => {
    const item = record('corrupt_numbers');
    const deck = await output(item);
    expect(deck.slide_count).toBe(original.slide_count);
    for (const change of item.changes) {
      const before = [...change.old.matchAll(NUMBER_PATTERN)].map((match) =>
        Number(match[0].replace(/,/g, '')),
      );
      const after = [...change.new.matchAll(NUMBER_PATTERN)].map((match) =>
        Number(match[0].replace(/,/g, '')),
      );
      expect(after).toHaveLength(before.length);
      expect(after).not.toEqual(before);
      expect(change.new.replace(/\d/g, '#')).toBe(change.old.replace(/\d/g, '#'));
      expect(deck.slides[change.slide - 1]!.visible_text).toContain(change.new);
    }
    const changed = new Set(item.changes.map((change) => change.slide - 1));
    deck.slides.forEach((slide, position) => {
      if (!changed.has(position)) expect(slide.visible_text).toBe(original.slides[position]!.visible_text);
    });
  });

  it('swap_facts exchanges terms or numbers between two different slides', async () => {
    const item = record('swap_facts');
    const deck = await output(item);
    expect(item.changed_units % 2).toBe(0);
    for (const change of item.changes) {
      expect(change.detail).toMatch(/from slide \d+/);
      for (const [, from] of change.detail!.matchAll(/from slide (\d+)/g))
        expect(Number(from)).not.toBe(change.slide);
      expect(deck.slides[change.slide - 1]!.visible_text).toContain(change.new);
    }
  });

  it('inject_claims adds marked, fabricated sentences whose figures the deck never had', async () => {
    const item = record('inject_claims');
    const deck = await output(item);
    const before = texts(original).join('\n');
    for (const change of item.changes) {
      expect(change.fabricated).toBe(true);
      expect(change.old).toBe('');
      expect(deck.slides[change.slide - 1]!.visible_text.split('\n')).toContain(change.new);
      for (const [number] of change.new.matchAll(NUMBER_PATTERN))
        expect(before).not.toMatch(new RegExp(`\\b${number}\\b`));
    }
    expect(countVisibleWords(texts(deck).join('\n'))).toBeGreaterThan(countVisibleWords(before));
  });

  it('pad_words appends filler and keeps every original word', async () => {
    const item = record('pad_words');
    const deck = await output(item);
    expect(deck.visible_word_count).toBeGreaterThan(original.visible_word_count);
    for (const change of item.changes) {
      expect(change.new.startsWith(change.old.trimEnd())).toBe(true);
      expect(change.new.slice(change.old.length)).not.toMatch(/\d/);
    }
  });

  it('shrink_fonts sets the recorded runs below 12 pt and leaves the text alone', async () => {
    const item = record('shrink_fonts');
    const deck = await output(item);
    expect(texts(deck)).toEqual(texts(original));
    for (const change of item.changes) expect(Number(change.new)).toBeLessThan(12);
    const before = runLayoutChecks(original).find((check) => check.id === 'min_font_size')!;
    const after = runLayoutChecks(deck).find((check) => check.id === 'min_font_size')!;
    expect(before.passed).toBe(true);
    expect(after.passed).toBe(false);
    expect(new Set(after.slides)).toEqual(new Set(item.changes.map((change) => change.slide)));
  });

  it('overflow_text breaks exactly the geometry checks its record names', async () => {
    for (const severity of [0.1, 0.25, 0.5]) {
      const item = record('overflow_text', severity);
      const deck = await output(item);
      expect(texts(deck)).toEqual(texts(original));
      const checks = Object.fromEntries(runLayoutChecks(deck).map((check) => [check.id, check.passed]));
      const originalChecks = Object.fromEntries(
        runLayoutChecks(original).map((check) => [check.id, check.passed]),
      );
      expect(originalChecks.off_slide).toBe(true);
      for (const id of ['off_slide', 'text_overlap']) {
        if (item.expected.lower.includes(`layout.${id}`)) expect(checks[id], `${severity} ${id}`).toBe(false);
      }
    }
  });

  it('keeps every part it did not need to touch byte for byte', async () => {
    const source = ZipArchive.open(await readFile(FIXTURE_PPTX), FIXTURE_PPTX);
    for (const kind of ['shuffle_slides', 'corrupt_numbers', 'shrink_fonts']) {
      const item = record(kind);
      const file = join(outDir(), item.output!);
      const written = ZipArchive.open(await readFile(file), file);
      const changedSlides = new Set(item.changes.map((change) => `ppt/slides/slide${change.slide}.xml`));
      for (const name of source.names()) {
        const same = source.read(name)!.equals(written.read(name)!);
        if (kind === 'shuffle_slides') expect(same, name).toBe(name !== 'ppt/presentation.xml');
        else expect(same, `${kind}: ${name}`).toBe(!changedSlides.has(name));
      }
      expect(written.names()).toEqual(source.names());
    }
  });

  it('gives byte-identical decks and records for the same inputs and seed, others for another seed', async () => {
    const again = join(dir, 'again');
    await perturbDeck({ deck: FIXTURE_PPTX, outDir: again, seed: 5 });
    const other = join(dir, 'other');
    await perturbDeck({ deck: FIXTURE_PPTX, outDir: other, seed: 6, kinds: ['drop_slides', 'shrink_fonts'] });
    const list = async (root: string) =>
      (await readdir(root, { recursive: true })).filter((name) => name.endsWith('.pptx')).sort();
    expect(await list(again)).toEqual(await list(outDir()));
    for (const name of await list(outDir())) {
      expect((await readFile(join(again, name))).equals(await readFile(join(outDir(), name))), name).toBe(
        true,
      );
    }
    const firstLines = (await readFile(join(outDir(), 'perturbations.jsonl'), 'utf8')).replace(
      /"original":"[^"]*"/g,
      '',
    );
    const againLines = (await readFile(join(again, 'perturbations.jsonl'), 'utf8')).replace(
      /"original":"[^"]*"/g,
      '',
    );
    expect(againLines).toBe(firstLines);
    const name = 'shrink_fonts/0.5/cs_raft_consensus.baseline.pptx';
    expect((await readFile(join(other, name))).equals(await readFile(join(outDir(), name)))).toBe(false);
  });

  // LibreOffice is a system package: CI installs it and this test is mandatory there (CI=true); on a
  // machine without it the test is skipped with this reason.
  const soffice = (() => {
    try {
      return findSoffice();
    } catch {
      return undefined;
    }
  })();
  it.skipIf(!soffice && !process.env.CI)(
    'opens in LibreOffice with the expected page count (one conversion of every kind, each deck its own PDF)',
    async () => {
      expect(
        soffice,
        'soffice missing: apt-get install --no-install-recommends libreoffice-impress-nogui',
      ).toBeDefined();
      const written = records.filter((item) => item.output && item.severity === 0.5);
      expect(written.length).toBeGreaterThan(5);
      // One LibreOffice start for all decks: a deck it cannot open leaves its PDF missing, the others go on.
      const work = join(dir, 'convert');
      const [decksDir, pdfDir] = [join(work, 'decks'), join(work, 'pdf')];
      await mkdir(decksDir, { recursive: true });
      await mkdir(pdfDir, { recursive: true });
      const inputs = written.map((item) => join(decksDir, `${item.kind}.pptx`));
      for (const [i, item] of written.entries()) await copyFile(join(outDir(), item.output!), inputs[i]!);
      const result = await runSofficeToPdf({
        soffice: soffice!,
        work,
        profile: join(work, 'profile'),
        outDir: pdfDir,
        inputs,
        timeoutMs: 240_000,
      });
      expect(result.code, result.stderr).toBe(0);
      for (const item of written) {
        const rendered = await readDeck(join(pdfDir, `${item.kind}.pdf`));
        expect(rendered.slide_count, item.kind).toBe(item.slide_count_after);
      }
    },
    300_000,
  );
});

describe('perturbDeck on a PDF deck', () => {
  it('moves whole pages and records text-level kinds as skipped with the reason', async () => {
    const out = join(dir, 'pdf-out');
    const pdfOriginal = await readDeck(FIXTURE_PDF);
    const { records: pdfRecords } = await perturbDeck({
      deck: FIXTURE_PDF,
      outDir: out,
      severities: [0.5],
      seed: 2,
    });
    for (const item of pdfRecords) {
      if (['drop_slides', 'shuffle_slides', 'duplicate_slides'].includes(item.kind)) {
        expect(item.output).toBe(`${item.kind}/0.5/cs_raft_consensus.pdf`);
        expect(item.format).toBe('pdf');
      } else {
        expect(item.output).toBeNull();
        expect(item.skipped).toMatch(/page-level kinds/);
      }
    }
    const dropped = await readDeck(
      join(out, pdfRecords.find((item) => item.kind === 'drop_slides')!.output!),
    );
    const gone = new Set(
      pdfRecords.find((item) => item.kind === 'drop_slides')!.changes.map((change) => change.slide - 1),
    );
    expect(texts(dropped)).toEqual(texts(pdfOriginal).filter((_, position) => !gone.has(position)));
    const duplicated = await readDeck(
      join(out, pdfRecords.find((item) => item.kind === 'duplicate_slides')!.output!),
    );
    expect(duplicated.slide_count).toBeGreaterThan(pdfOriginal.slide_count);
    const again = join(dir, 'pdf-again');
    await perturbDeck({ deck: FIXTURE_PDF, outDir: again, severities: [0.5], seed: 2 });
    for (const item of pdfRecords.filter((entry) => entry.output)) {
      expect(
        (await readFile(join(again, item.output!))).equals(await readFile(join(out, item.output!))),
      ).toBe(true);
    }
  });
});

describe('perturbDeck on hand-made and real-world decks', () => {
  it('removes the source references a deck cites', async () => {
    const file = join(dir, 'cited.pptx');
    await writeFile(
      file,
      buildTestPptx({
        slides: [
          { fileNumber: 1, title: 'Cited deck' },
          {
            fileNumber: 2,
            title: 'Method',
            bullets: ['We sample 40 sites (Section 2.3).', 'Results are in Table 1 and on p. 12.'],
          },
          {
            fileNumber: 3,
            title: 'Results',
            bullets: ['Yield rose by 8 percent [4].', 'Source: Annual report 2021'],
          },
        ],
      }),
    );
    const { records: cited } = await perturbDeck({
      deck: file,
      outDir: join(dir, 'cited'),
      kinds: ['remove_citations'],
      severities: [1],
    });
    const deck = await readDeck(join(dir, 'cited', cited[0]!.output!));
    expect(cited[0]!.changed_units).toBe(5);
    expect(deck.slides[1]!.visible_text).toBe('Method\nWe sample 40 sites.\nResults are in and on.');
    expect(deck.slides[2]!.visible_text).toBe('Results\nYield rose by 8 percent.');
    expect(
      runLayoutChecks(deck, { requireSourceAttribution: true }).find(
        (check) => check.id === 'source_attribution',
      )!.slides,
    ).toEqual([1, 2, 3]);
  });

  it('fails clearly on a file that is not a deck, and refuses a severity outside (0, 1]', async () => {
    const file = join(dir, 'not-a-deck.pptx');
    await writeFile(file, 'hello');
    await expect(perturbDeck({ deck: file, outDir: join(dir, 'bad') })).rejects.toThrow(InputError);
    await expect(
      perturbDeck({ deck: FIXTURE_PPTX, outDir: join(dir, 'bad'), severities: [0] }),
    ).rejects.toThrow(/\(0, 1\]/);
  });

  it.skipIf(!existsSync(corpus))(
    'perturbs every corpus PPTX: each record is verified or skipped with a reason',
    async () => {
      for (const name of (await readdir(corpus)).filter((entry) => entry.endsWith('.pptx')).sort()) {
        const out = join(dir, 'corpus', name);
        const { records: corpusRecords } = await perturbDeck({
          deck: join(corpus, name),
          outDir: out,
          severities: [1],
        });
        for (const item of corpusRecords) {
          expect(item.error, `${name} ${item.kind}`).toBeUndefined();
          if (item.output)
            expect((await readDeck(join(out, item.output))).slide_count).toBe(item.slide_count_after);
          else expect(item.skipped, `${name} ${item.kind}`).toBeTruthy();
        }
      }
      const texts = await perturbDeck({
        deck: join(corpus, 'txt-font-props.pptx'),
        outDir: join(dir, 'corpus-fonts'),
        kinds: ['shrink_fonts'],
        severities: [1],
      });
      expect(texts.records[0]!.changed_units).toBeGreaterThan(0);
    },
    120_000,
  );
});

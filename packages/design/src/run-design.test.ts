import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunLayout, type StageEvent } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { SlideRenderStore } from '@xsb/decks';
import { writeSourceCase } from '@xsb/sources/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deckDesignCacheFile } from './cached-deck-design';
import { runDesign } from './run-design';
import { designRecordSchema } from './schemas/design-record';
import { referenceRecordSchema } from './schemas/reference-record';

const fixture = (path: string) => fileURLToPath(new URL(`../../../fixtures/${path}`, import.meta.url));
const RAFT_PDF = fixture('decks/notebooklm/cs_raft_consensus.pdf');
const HEAT_PDF = fixture('demo/notebooklm/energy_heat_pump_pilot.pdf');

let root: string;
let cleanup: () => Promise<void>;
let layout: RunLayout;
const evaluation = (audience: string, caseLabel = 'raft') =>
  layout.evaluationDir({
    run: 'r',
    system: 'notebooklm',
    condition: 'audience_agnostic',
    audience,
    caseLabel,
  });
const raftDeck = () =>
  join(
    layout.deckDir({
      run: 'r',
      system: 'notebooklm',
      condition: 'audience_agnostic',
      audience: 'all',
      caseLabel: 'raft',
    }),
    'deck.pdf',
  );
const readRecord = async (dir: string, file: string) => JSON.parse(await readFile(join(dir, file), 'utf8'));

beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-design-run-'));
  const data = join(root, 'data');
  layout = new RunLayout(data);
  for (const caseLabel of ['raft', 'broken']) {
    await writeSourceCase(data, caseLabel, 'source.md', '# Raft\nLeaders and logs.', {
      valid_audiences: ['learners', 'specialists'],
    });
    const deckDir = layout.deckDir({
      run: 'r',
      system: 'notebooklm',
      condition: 'audience_agnostic',
      audience: 'all',
      caseLabel,
    });
    await mkdir(deckDir, { recursive: true });
    if (caseLabel === 'raft') await copyFile(RAFT_PDF, join(deckDir, 'deck.pdf'));
    else await writeFile(join(deckDir, 'deck.pdf'), '%PDF-1.4 not really');
  }
  await copyFile(RAFT_PDF, join(layout.sourceDir('raft'), 'reference.pdf'));
});
afterAll(() => cleanup());

describe('runDesign over a run', () => {
  it('writes design.json into every evaluation job and reference.json where the case has a reference', async () => {
    const events: StageEvent[] = [];
    const rows = await runDesign({ layout, run: 'r', onEvent: (event) => events.push(event) });
    expect(rows.map((row) => [row.id, row.status, row.reference])).toEqual([
      ['notebooklm/audience_agnostic/learners/broken', 'failed', false],
      ['notebooklm/audience_agnostic/specialists/broken', 'failed', false],
      ['notebooklm/audience_agnostic/learners/raft', 'done', true],
      ['notebooklm/audience_agnostic/specialists/raft', 'done', true],
    ]);
    expect(rows[0]!.error).toMatch(/deck\.pdf/);
    expect(events.at(-1)).toEqual({
      type: 'stage-finished',
      stage: 'design',
      total: 4,
      done: 2,
      reused: 0,
      failed: 2,
    });
    const [learners, specialists] = [evaluation('learners'), evaluation('specialists')];
    const design = designRecordSchema.parse(await readRecord(learners, 'design.json'));
    expect(design.slides.length).toBeGreaterThan(1);
    expect(await readRecord(specialists, 'design.json')).toEqual(design);
    // Paths relative to the job's folder: the data folder can move.
    expect(resolve(learners, design.deck_file)).toBe(raftDeck());
    // The deck is its own reference: 1 on every reference metric.
    const reference = referenceRecordSchema.parse(await readRecord(learners, 'reference.json'));
    expect(reference).toMatchObject({ slide_count_ratio: 1, rouge_l: 1, order_tau: 1, key_term_recall: 1 });
    expect(existsSync(join(evaluation('learners', 'broken'), 'design.json'))).toBe(false);
    // One render for the deck however many audiences: one entry in the run's render store, the exact pages measured.
    const store = new SlideRenderStore(layout.slideRendersDir('r'));
    expect(await readdir(layout.slideRendersDir('r'))).toEqual([design.deck_sha256]);
    expect(await store.widths(design.deck_sha256)).toEqual([960]);
    expect(await store.pages(design.deck_sha256, 960)).toHaveLength(design.slides.length);
    const cached = designRecordSchema.parse(
      JSON.parse(await readFile(deckDesignCacheFile(raftDeck()), 'utf8')),
    );
    expect({ ...cached, deck_file: design.deck_file }).toEqual(design);
  }, 120_000);

  it('measures a deck whose design.json is gone from the deck cache, not a new render', async () => {
    const before = designRecordSchema.parse(await readRecord(evaluation('learners'), 'design.json'));
    // With the renders gone too, only the cache beside the deck can give the metrics without rendering.
    await rm(layout.slideRendersDir('r'), { recursive: true });
    await rm(join(evaluation('learners'), 'design.json'));
    const rows = await runDesign({ layout, run: 'r', filters: { cases: ['raft'] } });
    expect(rows.map((row) => row.status)).toEqual(['done', 'reused']);
    expect(existsSync(layout.slideRendersDir('r'))).toBe(false);
    expect(await readRecord(evaluation('learners'), 'design.json')).toEqual(before);
  }, 120_000);

  it('reuses current files, recomputes for a changed reference, and drops reference.json with the reference', async () => {
    await rm(
      join(
        layout.deckDir({
          run: 'r',
          system: 'notebooklm',
          condition: 'audience_agnostic',
          audience: 'all',
          caseLabel: 'broken',
        }),
      ),
      { recursive: true },
    );
    const again = await runDesign({ layout, run: 'r' });
    expect(again.map((row) => row.status)).toEqual(['reused', 'reused']);

    await copyFile(HEAT_PDF, join(layout.sourceDir('raft'), 'reference.pdf'));
    const changed = await runDesign({ layout, run: 'r' });
    expect(changed.map((row) => row.status)).toEqual(['done', 'done']);
    const reference = referenceRecordSchema.parse(await readRecord(evaluation('learners'), 'reference.json'));
    expect(reference.rouge_l).toBeLessThan(0.5);

    await rm(join(layout.sourceDir('raft'), 'reference.pdf'));
    const without = await runDesign({ layout, run: 'r' });
    expect(without.map((row) => [row.status, row.reference])).toEqual([
      ['done', false],
      ['done', false],
    ]);
    expect(existsSync(join(evaluation('learners'), 'reference.json'))).toBe(false);
    expect((await runDesign({ layout, run: 'r', force: true })).map((row) => row.status)).toEqual([
      'done',
      'done',
    ]);
  }, 120_000);

  it('refuses a run without decks, naming the folder', async () => {
    await expect(runDesign({ layout, run: 'nope' })).rejects.toThrow(
      /run "nope" has no decks \(.*nope.*decks does not exist\)/,
    );
  });
});

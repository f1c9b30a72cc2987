import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunLayout } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { writeSourceCase } from '@xsb/sources/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStudy } from './create-study';

const RAFT_PDF = fileURLToPath(
  new URL('../../../../fixtures/decks/notebooklm/cs_raft_consensus.pdf', import.meta.url),
);
let root: string;
let cleanup: () => Promise<void>;
let data: string;

/** Two PDF systems on three cases; system "b" has a deck that is not a PDF on case "broken". */
beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-study-create-'));
  data = join(root, 'data');
  const layout = new RunLayout(data);
  for (const [caseLabel, scene] of [
    ['raft', 'lecture'],
    ['paxos', 'lecture'],
    ['broken', 'pitch'],
  ] as const) {
    await writeSourceCase(data, caseLabel, 'source.md', '# Consensus', {
      valid_audiences: ['learners'],
      scene,
    });
    for (const system of ['a', 'b']) {
      const dir = layout.deckDir({
        run: 'r',
        system,
        condition: 'audience_agnostic',
        audience: 'all',
        caseLabel,
      });
      await mkdir(dir, { recursive: true });
      if (caseLabel === 'broken' && system === 'b')
        await writeFile(join(dir, 'deck.pdf'), '%PDF-1.4 not really');
      else await copyFile(RAFT_PDF, join(dir, 'deck.pdf'));
    }
  }
});
afterAll(() => cleanup());

const systems = ['a__audience_agnostic', 'b__audience_agnostic'];

describe('createStudy', () => {
  it('leaves out, and names, a case whose deck cannot be shown; the others make the study', async () => {
    const out = join(root, 'study');
    const { study, key } = await createStudy({ dataDir: data, run: 'r', systems, sample: 3, out });
    expect(study.cases.map((c) => c.case)).toEqual(['paxos', 'raft']);
    expect(key.skipped).toEqual([
      { case: 'broken', reason: expect.stringMatching(/^a deck cannot be shown: .*deck\.pdf/) },
    ]);
    expect(Object.keys(key.cases).sort()).toEqual(['paxos', 'raft']);
    // Slides of the left-out case are gone; every slide the study names exists.
    const written = await readdir(join(out, 'slides'));
    expect(written.sort()).toEqual(study.cases.map((c) => c.decks[0]!.slides[0]!.split('/')[1]!).sort());
    for (const c of study.cases)
      for (const d of c.decks) for (const s of d.slides) expect(existsSync(join(out, s))).toBe(true);
    expect(JSON.parse(await readFile(join(out, 'study.json'), 'utf8'))).toEqual(study);
  }, 60_000);

  it('writes nothing when no sampled case can be shown', async () => {
    const only = join(root, 'only-broken');
    const layout = new RunLayout(only);
    await writeSourceCase(only, 'broken', 'source.md', '# Consensus', { valid_audiences: ['learners'] });
    for (const system of ['a', 'b']) {
      const dir = layout.deckDir({
        run: 'r',
        system,
        condition: 'audience_agnostic',
        audience: 'all',
        caseLabel: 'broken',
      });
      await mkdir(dir, { recursive: true });
      if (system === 'b') await writeFile(join(dir, 'deck.pdf'), '%PDF-1.4 not really');
      else await copyFile(RAFT_PDF, join(dir, 'deck.pdf'));
    }
    const out = join(root, 'never');
    await expect(createStudy({ dataDir: only, run: 'r', systems, sample: 1, out })).rejects.toThrow(
      /no sampled case could be shown \(broken: a deck cannot be shown/,
    );
    expect(existsSync(out)).toBe(false);
  }, 60_000);
});

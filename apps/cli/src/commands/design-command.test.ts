import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunLayout } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { buildColoredTextPptx } from '@xsb/design/testing';
import { writeSourceCase } from '@xsb/sources/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runXsb } from '../testing-cli';

const RAFT_PDF = fileURLToPath(
  new URL('../../../../fixtures/decks/notebooklm/cs_raft_consensus.pdf', import.meta.url),
);

let root: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-design-cli-'));
  const text = 'Words on a slide that a reader has to read from the back of the room';
  await writeFile(
    join(root, 'grey.pptx'),
    buildColoredTextPptx([{ title: 'Grey', body: text, color: 'C8C8C8' }]),
  );
  await writeFile(
    join(root, 'black.pptx'),
    buildColoredTextPptx([{ title: 'Black', body: text, color: '000000' }]),
  );
});
afterAll(() => cleanup());

const run = (args: string) => runXsb(args.split(' '), { cwd: root });

describe('xsb design --deck', () => {
  it('names the slide whose text is under 3:1, and not in the black copy; --json and --keep-renders', async () => {
    const grey = await run('design --deck grey.pptx --keep-renders renders');
    expect(grey.code).toBe(0);
    expect(grey.stdout).toMatch(/^slide +colorful +contrast min/);
    expect(grey.stderr).toMatch(/^slide 1: 2 text elements under 3:1 contrast \(lowest 1\.\d\d:1\)$/m);
    expect(existsSync(join(root, 'renders', 'slide-1.png'))).toBe(true);
    const black = await run('design --deck black.pptx --json');
    expect(black.code).toBe(0);
    expect(black.stderr).toBe('');
    const record = JSON.parse(black.stdout);
    expect(record.slides).toHaveLength(1);
    expect(record.slides[0]).toMatchObject({ index: 1, contrast_below_3: 0, contrast_below_4_5: 0 });
    expect(record.slides[0].contrast_min).toBeGreaterThan(15);
    expect(Object.keys(record.deck)).toEqual(
      expect.arrayContaining(['colorfulness', 'consistency', 'low_contrast_slides']),
    );
  }, 120_000);

  it('exits 2 for a missing deck, a deck with run flags, or renders without a deck', async () => {
    expect(await run('design --deck gone.pdf')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/deck .*gone\.pdf does not exist/),
    });
    expect((await run('design --deck grey.pptx --run r')).stderr).toMatch(
      /--deck measures one deck; --run select/,
    );
    expect((await run('design --keep-renders x')).stderr).toMatch(/--keep-renders goes with --deck/);
  });
});

describe('xsb design --data D --run R', () => {
  it('writes design.json and reference.json per evaluation job, exits 1 on a bad deck, reuses on a rerun', async () => {
    const data = join(root, 'data');
    const layout = new RunLayout(data);
    for (const caseLabel of ['raft', 'bad']) {
      await writeSourceCase(data, caseLabel, 'source.md', '# Raft', { valid_audiences: ['learners'] });
      const dir = layout.deckDir({
        run: 'r',
        system: 's',
        condition: 'audience_agnostic',
        audience: 'all',
        caseLabel,
      });
      await mkdir(dir, { recursive: true });
      if (caseLabel === 'raft') await copyFile(RAFT_PDF, join(dir, 'deck.pdf'));
      else await writeFile(join(dir, 'deck.pdf'), 'not a pdf');
    }
    await copyFile(RAFT_PDF, join(layout.sourceDir('raft'), 'reference.pdf'));
    const first = await run('design --data data --run r');
    expect(first.code).toBe(1);
    expect(first.stdout).toContain('1 done, 0 reused, 1 failed');
    expect(first.stderr).toMatch(/^ERROR: s\/audience_agnostic\/learners\/bad: .*deck\.pdf/m);
    const job = layout.evaluationDir({
      run: 'r',
      system: 's',
      condition: 'audience_agnostic',
      audience: 'learners',
      caseLabel: 'raft',
    });
    expect(JSON.parse(await readFile(join(job, 'reference.json'), 'utf8'))).toMatchObject({
      rouge_l: 1,
      order_tau: 1,
    });
    expect(JSON.parse(await readFile(join(job, 'design.json'), 'utf8')).deck.slide_count).toBeGreaterThan(1);
    const again = await run('design --data data --run r --case raft --json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual([
      { id: 's/audience_agnostic/learners/raft', dir: job, status: 'reused', reference: true, error: null },
    ]);
    expect((await run('design --data data --run none')).code).toBe(2);
  }, 120_000);
});

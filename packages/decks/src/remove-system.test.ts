import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RunLayout, readJson, UsageError, writeJson } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listRunSystems, removeSystemFromRun } from './remove-system';
import { deckImportManifestSchema } from './schemas/deck-import-manifest';

let dir: string;
let cleanup: () => Promise<void>;
let layout: RunLayout;

async function touch(file: string): Promise<void> {
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, 'x');
}

/** A run with two systems, two cases, an evaluation variant and compact metrics. */
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-remove-'));
  layout = new RunLayout(join(dir, 'data'));
  const run = layout.runDir('r');
  for (const system of ['xsb-baseline', 'notebooklm'])
    for (const caseLabel of ['a', 'b']) {
      await touch(join(run, 'decks', system, 'audience_agnostic', 'all', caseLabel, `${caseLabel}.pdf`));
      for (const audience of ['learners', 'specialists'])
        await touch(
          join(run, 'evaluations', system, 'audience_agnostic', audience, caseLabel, 'metrics.json'),
        );
      await touch(join(run, 'metrics', `${system}__audience_agnostic`, 'learners', `${caseLabel}.json`));
    }
  await touch(
    join(run, 'evaluations@judge_text', 'notebooklm', 'audience_agnostic', 'learners', 'a', 'x.json'),
  );
  await writeJson(join(run, 'decks', 'notebooklm', 'import_manifest.json'), deckImportManifestSchema, {
    system: 'notebooklm',
    source_dir: '/exports',
    decks: ['a', 'b'].map((caseLabel) => ({
      case_label: caseLabel,
      condition: 'audience_agnostic',
      audience: 'all',
      source_file: `${caseLabel}.pdf`,
      deck_path: `runs/r/decks/notebooklm/audience_agnostic/all/${caseLabel}/${caseLabel}.pdf`,
      sha256: 'a'.repeat(64),
    })),
    skipped: [],
  });
});
afterEach(() => cleanup());

describe('removeSystemFromRun', () => {
  it('removes one case of a system: its decks, evaluations (variants too), metric copies and manifest entry', async () => {
    const result = await removeSystemFromRun({ layout, run: 'r', system: 'notebooklm', caseLabel: 'a' });
    expect(result.removed).toEqual([
      'runs/r/decks/notebooklm/audience_agnostic/all/a',
      'runs/r/evaluations/notebooklm/audience_agnostic/learners/a',
      'runs/r/evaluations/notebooklm/audience_agnostic/specialists/a',
      'runs/r/evaluations@judge_text/notebooklm/audience_agnostic/learners/a',
      'runs/r/metrics/notebooklm__audience_agnostic/learners/a.json',
    ]);
    const run = layout.runDir('r');
    expect(existsSync(join(run, 'decks', 'notebooklm', 'audience_agnostic', 'all', 'b'))).toBe(true);
    expect(existsSync(join(run, 'decks', 'xsb-baseline', 'audience_agnostic', 'all', 'a'))).toBe(true);
    // The variant tree held only case a: no empty folders are left behind.
    expect(existsSync(join(run, 'evaluations@judge_text', 'notebooklm'))).toBe(false);
    const manifest = await readJson(
      join(run, 'decks', 'notebooklm', 'import_manifest.json'),
      deckImportManifestSchema,
    );
    expect(manifest.decks.map((deck) => deck.case_label)).toEqual(['b']);
  });

  it('removes a whole system and leaves the others', async () => {
    const result = await removeSystemFromRun({ layout, run: 'r', system: 'notebooklm' });
    expect(result.removed).toEqual([
      'runs/r/decks/notebooklm',
      'runs/r/evaluations/notebooklm',
      'runs/r/evaluations@judge_text/notebooklm',
      'runs/r/metrics/notebooklm__audience_agnostic',
    ]);
    expect(await listRunSystems(layout, 'r')).toEqual(['xsb-baseline']);
    expect(await readdir(join(layout.runDir('r'), 'metrics'))).toEqual(['xsb-baseline__audience_agnostic']);
  });

  it('names the known systems for an unknown one, and refuses a case the system lacks', async () => {
    const unknown = await removeSystemFromRun({ layout, run: 'r', system: 'notebooklmm' }).catch((e) => e);
    expect(unknown).toBeInstanceOf(UsageError);
    expect(unknown.message).toBe(
      'unknown system "notebooklmm" in run r (did you mean "notebooklm"?) (known: notebooklm, xsb-baseline)',
    );
    const noCase = await removeSystemFromRun({
      layout,
      run: 'r',
      system: 'notebooklm',
      caseLabel: 'c',
    }).catch((e) => e);
    expect(noCase).toBeInstanceOf(UsageError);
    expect(noCase.message).toMatch(/has no deck or evaluation of case "c"/);
    expect(await listRunSystems(layout, 'r')).toEqual(['notebooklm', 'xsb-baseline']);
  });
});

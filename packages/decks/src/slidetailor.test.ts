import { existsSync } from 'node:fs';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunLayout, readJson } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareSlideTailor } from './prepare-slidetailor';
import { readDeck } from './read-deck';
import { readRunSheet } from './run-sheet';
import { runSlideTailor, splitCommand } from './run-slidetailor';
import { deckRowStatusSchema } from './schemas/deck-run-status';
import {
  SLIDETAILOR_TEMPLATE_MODE,
  slidetailorConfigSchema,
  slidetailorPreferenceSchema,
} from './schemas/slidetailor-job';
import { buildTestPptx } from './testing';

const fixturePdf = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../../fixtures/decks/notebooklm/cs_raft_consensus.pdf',
);

/** Stands in for the SlideTailor program: reads its config and writes a small deck where it says. */
const STAND_IN = `
import { readFileSync, writeFileSync, copyFileSync } from 'node:fs';
const [configPath, template, mode] = process.argv.slice(2);
const config = JSON.parse(readFileSync(configPath, 'utf8'));
const preference = JSON.parse(readFileSync(config.preference_path, 'utf8'));
if (mode === 'fail' && preference.audience === 'learners') { console.error('CUDA out of memory'); process.exit(3); }
if (mode === 'garbage') { writeFileSync(config.output_deck_path, 'not a deck'); process.exit(0); }
copyFileSync(template, config.output_deck_path);
writeFileSync(config.output_deck_path + '.seen', preference.preference_guidelines);
`;

let dir: string;
let cleanup: () => Promise<void>;
let layout: RunLayout;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-slidetailor-'));
  layout = new RunLayout(join(dir, 'data'));
  await copyFile(fixturePdf, join(dir, 'paper.pdf'));
  await writeFile(join(dir, 'notes.md'), '# Not a PDF\n\nSome words.');
  await writeFile(join(dir, 'stand-in.mjs'), STAND_IN);
  await writeFile(
    join(dir, 'template.pptx'),
    buildTestPptx({ slides: [{ fileNumber: 1, title: 'Tailored' }] }),
  );
  await writeFile(
    join(dir, 'sheet.csv'),
    [
      'system,condition,audience,case_label,source_document,prompt_path,output_deck_path',
      'slidetailor,audience_agnostic,all,raft,paper.pdf,,',
      'slidetailor,audience_conditioned,learners,raft,paper.pdf,,',
      'slidetailor,audience_conditioned,decision_makers,raft,paper.pdf,,',
      'slidetailor,audience_conditioned,learners,notes,notes.md,,',
      'xsb-baseline,audience_agnostic,all,raft,paper.pdf,,',
    ].join('\n'),
  );
});
afterEach(async () => cleanup());

const PROFILES = [
  { id: 'learners', description: 'Students who need the concepts explained simply.' },
  { id: 'decision_makers', description: 'Executives who need costs and recommendations.' },
];

async function prepare() {
  return prepareSlideTailor({
    sheet: await readRunSheet(join(dir, 'sheet.csv')),
    layout,
    run: 'st',
    audienceProfiles: PROFILES,
  });
}

describe('prepareSlideTailor', () => {
  it('prepares PDF rows with configs, preferences and a run sheet, and skips other sources with the reason', async () => {
    const result = await prepare();
    expect(result.prepared).toBe(3);
    expect(result.skipped).toHaveLength(1);
    expect(result.skipped[0]?.reason).toMatch(/notes\.md: SlideTailor prepares PDF sources only/);
    expect(existsSync(join(result.outDir, 'dataset', 'raft', 'paper.pdf'))).toBe(true);
    const sheet = await readRunSheet(result.runSheetFile);
    expect(sheet.invalid).toEqual([]);
    expect(sheet.entries.map((entry) => entry.row.template_mode)).toEqual(
      Array(3).fill(SLIDETAILOR_TEMPLATE_MODE),
    );
    const conditioned = sheet.entries.find((entry) => entry.row.audience === 'learners');
    const preference = await readJson(conditioned?.promptPath ?? '', slidetailorPreferenceSchema);
    expect(preference.preference_guidelines).toContain('Students who need the concepts explained simply.');
    const agnostic = sheet.entries.find((entry) => entry.row.condition === 'audience_agnostic');
    const agnosticPreference = await readJson(agnostic?.promptPath ?? '', slidetailorPreferenceSchema);
    expect(agnosticPreference.preference_guidelines).not.toContain('Students');
    const config = await readJson(String(conditioned?.row.config_path), slidetailorConfigSchema);
    expect(config.template_mode).toBe(SLIDETAILOR_TEMPLATE_MODE);
    expect(config.output_deck_path).toBe(
      join(
        layout.deckDir({
          run: 'st',
          system: 'slidetailor',
          condition: 'audience_conditioned',
          audience: 'learners',
          caseLabel: 'raft',
        }),
        'raft.pptx',
      ),
    );
  });
});

describe('prepareSlideTailor checks its rows first', () => {
  it('refuses a missing source and an unknown audience at once, writing nothing', async () => {
    await writeFile(
      join(dir, 'bad.csv'),
      [
        'system,condition,audience,case_label,source_document,prompt_path,output_deck_path',
        'slidetailor,audience_agnostic,all,raft,missing.pdf,,',
        'slidetailor,audience_conditioned,learnres,raft,paper.pdf,,',
        'xsb-baseline,audience_agnostic,all,other,nowhere.pdf,,',
      ].join('\n'),
    );
    const refusal = prepareSlideTailor({
      sheet: await readRunSheet(join(dir, 'bad.csv')),
      layout,
      run: 'st',
      audienceProfiles: PROFILES,
    });
    await expect(refusal).rejects.toMatchObject({ kind: 'usage', code: 'invalid_run_sheet' });
    const message = await refusal.catch((error: Error) => error.message);
    expect(message).toMatch(/line 2, source_document: .*does not exist/);
    expect(message).toMatch(/line 3, audience: no audience profile "learnres" \(did you mean "learners"\?\)/);
    // The xsb-baseline row is not this command's to check.
    expect(message).not.toContain('line 4');
    expect(existsSync(join(layout.runDir('st')))).toBe(false);
  });
});

describe('runSlideTailor', () => {
  it('runs rows through the command, records failures with stderr, skips done rows, filters by audience', async () => {
    const prepared = await prepare();
    const sheet = await readRunSheet(prepared.runSheetFile);
    const command = `${process.execPath} ${join(dir, 'stand-in.mjs')} {config} ${join(dir, 'template.pptx')} fail`;
    const first = await runSlideTailor({ sheet, layout, run: 'st', command });
    expect(first).toMatchObject({ done: 2, failed: 1 });
    const failed = first.rows.find((row) => row.status === 'failed');
    expect(failed?.audience).toBe('learners');
    expect(failed?.message).toMatch(/SlideTailor exited with 3: CUDA out of memory/);

    const ok = `${process.execPath} ${join(dir, 'stand-in.mjs')} {config} ${join(dir, 'template.pptx')} ok`;
    const second = await runSlideTailor({
      sheet,
      layout,
      run: 'st',
      command: ok,
      filters: { audiences: ['learners'] },
    });
    expect(second).toMatchObject({ rows_selected: 1, done: 1, failed: 0 });
    const learnersDeck = join(
      layout.deckDir({
        run: 'st',
        system: 'slidetailor',
        condition: 'audience_conditioned',
        audience: 'learners',
        caseLabel: 'raft',
      }),
      'raft.pptx',
    );
    expect((await readDeck(learnersDeck)).slides[0]?.title).toBe('Tailored');
    expect(await readFile(`${learnersDeck}.seen`, 'utf8')).toContain('Students who need');
    const status = await readJson(join(dirname(learnersDeck), 'deck_status.json'), deckRowStatusSchema);
    expect(status.status).toBe('done');

    const third = await runSlideTailor({ sheet, layout, run: 'st', command: ok });
    expect(third).toMatchObject({ done: 0, skipped: 3 });
  });

  it('fails a row whose command exits 0 without a readable deck, and removes the garbage', async () => {
    const prepared = await prepare();
    const sheet = await readRunSheet(prepared.runSheetFile);
    const garbage = `${process.execPath} ${join(dir, 'stand-in.mjs')} {config} ${join(dir, 'template.pptx')} garbage`;
    const summary = await runSlideTailor({
      sheet,
      layout,
      run: 'st',
      command: garbage,
      filters: { audiences: ['all'] },
    });
    expect(summary.failed).toBe(1);
    expect(summary.rows[0]?.message).toMatch(/exited 0 but left no readable deck/);
    expect(existsSync(join(dir, 'data', summary.rows[0]?.output_deck_path ?? ''))).toBe(false);
  });

  it('splits commands on spaces with quotes grouping words', () => {
    expect(splitCommand(`python "my script.py" --config {config} 'a b'`)).toEqual([
      'python',
      'my script.py',
      '--config',
      '{config}',
      'a b',
    ]);
  });
});

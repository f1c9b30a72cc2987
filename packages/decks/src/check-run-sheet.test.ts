import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RunLayout, writeJson } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { offlineJudge } from '@xsb/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkRunSheet } from './check-run-sheet';
import { generateDecksFromRunSheet } from './generate-decks-from-run-sheet';
import { readRunSheet } from './run-sheet';
import { deckImportManifestSchema } from './schemas/deck-import-manifest';

const HEADER = 'system,condition,audience,case_label,source_document,prompt_path,output_deck_path';
const AUDIENCES = ['specialists', 'learners', 'decision_makers'];

let dir: string;
let cleanup: () => Promise<void>;
let layout: RunLayout;

/** A data folder with two cases, `fresh` and `stale`, one source each, as stage 1 expects them. */
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-check-sheet-'));
  layout = new RunLayout(join(dir, 'data'));
  for (const [caseId, text] of [
    ['fresh', '# Fresh water\n\nRivers carry fresh water to the sea.\n'],
    ['stale', '# Stale bread\n\nBread goes stale as starch crystallises.\n'],
  ] as const) {
    await mkdir(layout.sourceDir(caseId), { recursive: true });
    await writeFile(join(layout.sourceDir(caseId), 'source.md'), text);
  }
});
afterEach(() => cleanup());

async function check(rows: string[], generators: string[] = []) {
  const file = join(dir, 'data', 'run_sheet.csv');
  await writeFile(file, [HEADER, ...rows].join('\n'));
  const sheet = await readRunSheet(file);
  return (await checkRunSheet({ sheet, layout, run: 'r', generators, audiences: AUDIENCES })).problems;
}

describe('checkRunSheet against the data folder', () => {
  it('accepts rows whose case, source, audience and system are all right', async () => {
    expect(
      await check(
        [
          'xsb-baseline,audience_agnostic,all,fresh,sources/fresh/source.md,,',
          'mine,audience_conditioned,learners,stale,sources/stale/source.md,,',
        ],
        ['mine'],
      ),
    ).toEqual([]);
  });

  it('names a case label typo with the nearest case, even when its source exists', async () => {
    const problems = await check(['xsb-baseline,audience_agnostic,all,fressh,sources/fresh/source.md,,']);
    expect(problems).toEqual([
      {
        line: 2,
        field: 'case_label',
        message: expect.stringMatching(
          /^case "fressh" has no sources: .*\(did you mean "fresh"\?\) \(cases: fresh, stale\)$/,
        ),
      },
    ]);
  });

  it("refuses a missing source and another case's source, and accepts a copy of the case's own", async () => {
    await writeFile(join(dir, 'copy.md'), '# Fresh water\n\nRivers carry fresh water to the sea.\n');
    const problems = await check([
      'xsb-baseline,audience_agnostic,all,fresh,sources/fresh/nothing.md,,',
      'xsb-baseline,audience_conditioned,learners,fresh,sources/stale/source.md,,',
      'xsb-baseline,audience_conditioned,specialists,fresh,../copy.md,,',
    ]);
    expect(problems.map(({ line, field }) => `${line} ${field}`)).toEqual([
      '2 source_document',
      '3 source_document',
    ]);
    expect(problems[0]?.message).toMatch(/^sources\/fresh\/nothing\.md does not exist/);
    expect(problems[1]?.message).toMatch(
      /^sources\/stale\/source\.md is the source of case "stale", not of case "fresh"/,
    );
  });

  it('names an unknown system with the nearest known one, and an unknown audience', async () => {
    const problems = await check(
      [
        'pptagnet,audience_agnostic,all,fresh,sources/fresh/source.md,,',
        'xsb-baseline,audience_conditioned,learner,fresh,sources/fresh/source.md,,',
      ],
      ['pptagent'],
    );
    expect(problems.map(({ line, field }) => `${line} ${field}`)).toEqual(['2 system', '3 audience']);
    expect(problems[0]?.message).toMatch(/^unknown system "pptagnet" \(did you mean "pptagent"\?\)/);
    expect(problems[1]?.message).toMatch(/^no audience profile "learner" \(did you mean "learners"\?\)/);
  });

  it('knows a case from its source context alone, and a case folder without a source is a problem', async () => {
    await mkdir(layout.probesDir('merged'), { recursive: true });
    await writeFile(layout.sourceContextFile('merged'), 'Merged text.');
    await mkdir(layout.sourceDir('empty'), { recursive: true });
    await writeFile(join(dir, 'merged.md'), 'Merged text.');
    const problems = await check([
      'xsb-baseline,audience_agnostic,all,merged,../merged.md,,',
      'xsb-baseline,audience_agnostic,all,empty,../merged.md,,',
    ]);
    expect(problems).toEqual([
      {
        line: 3,
        field: 'case_label',
        message: expect.stringMatching(/^case "empty" has no usable source: .*no source file/),
      },
    ]);
  });

  it('accepts rows of an imported system that has their deck, and skips them when generating', async () => {
    await writeJson(
      join(layout.decksRoot('r'), 'notebooklm', 'import_manifest.json'),
      deckImportManifestSchema,
      {
        system: 'notebooklm',
        source_dir: '/exports',
        decks: [
          {
            case_label: 'fresh',
            condition: 'audience_agnostic',
            audience: 'all',
            source_file: 'fresh.pdf',
            deck_path: 'runs/r/decks/notebooklm/audience_agnostic/all/fresh/fresh.pdf',
            sha256: 'a'.repeat(64),
          },
        ],
        skipped: [],
      },
    );
    const rows = [
      'notebooklm,audience_agnostic,all,fresh,sources/fresh/source.md,,',
      'notebooklm,audience_agnostic,all,stale,sources/stale/source.md,,',
    ];
    const problems = await check(rows);
    const sheet = await readRunSheet(join(dir, 'data', 'run_sheet.csv'));
    expect(problems).toEqual([
      {
        line: 3,
        field: 'system',
        message: expect.stringMatching(
          /no deck of the imported system "notebooklm" for audience_agnostic\/all\/stale/,
        ),
      },
    ]);
    const summary = await generateDecksFromRunSheet({
      sheet: { ...sheet, entries: sheet.entries.slice(0, 1) },
      layout,
      run: 'r',
      judge: offlineJudge,
      audienceProfiles: [],
      force: true,
    });
    expect(summary.rows).toMatchObject([
      { system: 'notebooklm', status: 'skipped', message: 'imported into the run from another tool' },
    ]);
  });

  it('checks a sheet without a data tree only against itself', async () => {
    const elsewhere = new RunLayout(join(dir, 'empty-data'));
    await writeFile(join(dir, 'a.md'), 'A.');
    await writeFile(join(dir, 'b.md'), 'B.');
    const file = join(dir, 'sheet.csv');
    await writeFile(
      file,
      [
        HEADER,
        'xsb-baseline,audience_agnostic,all,anything,a.md,,',
        'xsb-baseline,audience_conditioned,learners,anything,b.md,,',
        'xsb-baseline,audience_agnostic,all,other,a.md,,',
      ].join('\n'),
    );
    const { problems } = await checkRunSheet({
      sheet: await readRunSheet(file),
      layout: elsewhere,
      run: 'r',
      generators: [],
      audiences: AUDIENCES,
    });
    expect(problems).toEqual([
      {
        line: 3,
        field: 'source_document',
        message: expect.stringMatching(
          /^b\.md differs from the source document of case "anything" on line 2/,
        ),
      },
    ]);
  });
});

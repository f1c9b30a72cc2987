import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deckSchema } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { type DeckBatchSummary, deckBatchSummarySchema } from '@xsb/decks';
import { buildTestPptx, presentableDeckViolations } from '@xsb/decks/testing';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runXsb, type XsbArgs } from '../testing-cli';
import { copyRepoFixtures } from '../testing-fixtures';

let root: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-decks-cli-'));
  await copyRepoFixtures(['sources', 'run-sheets', 'decks'], join(root, 'fixtures'));
});
afterEach(() => cleanup());

// PPTX rendering looks for LibreOffice (soffice) on PATH.
const run = (args: XsbArgs) => runXsb(args, { cwd: root, env: { PATH: process.env.PATH ?? '' } });

describe('xsb decks inspect', () => {
  it('prints one JSON object with deck stats fields and slides in order', async () => {
    const result = await run('decks inspect fixtures/decks/notebooklm/cs_raft_consensus.pdf --json');
    expect(result.code).toBe(0);
    const raw = JSON.parse(result.stdout);
    expect(Object.keys(raw).sort()).toEqual(
      [
        'deck_path',
        'format',
        'parser',
        'slide_count',
        'slide_height',
        'slide_width',
        'slides',
        'visible_word_count',
        'warnings',
      ].sort(),
    );
    expect(Object.keys(raw.slides[0]).sort()).toEqual(
      ['elements', 'index', 'notes', 'title', 'visible_text'].sort(),
    );
    const deck = deckSchema.parse(raw);
    expect(deck).toMatchObject({ slide_count: 6, parser: 'pdf', warnings: [] });
    expect(deck.visible_word_count).toBeGreaterThan(50);
    expect(deck.slides.map((slide) => slide.index)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(deck.slides[1]?.title).toBe('What Raft is for');
    expect(deck.slides[1]?.elements[0]?.bbox).not.toBeNull();
  });

  it('exits 1 with ERROR: <file>: <reason> for a deck it cannot read', async () => {
    await writeFile(join(root, 'broken.pptx'), 'PK\u0003\u0004 not really');
    const result = await run(['decks', 'inspect', 'broken.pptx', '--json']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `ERROR: ${join(root, 'broken.pptx')}: not a valid ZIP archive (no end-of-central-directory record)\n`,
    );
  });

  it('writes deck_stats.json with --stats-dir and truncates with --max-slides', async () => {
    const result = await run(
      'decks inspect fixtures/decks/cs_raft_consensus.baseline.pptx --max-slides 3 --stats-dir stats',
    );
    expect(result.code).toBe(0);
    const stats = JSON.parse(await readFile(join(root, 'stats', 'deck_stats.json'), 'utf8'));
    expect(stats.slide_count).toBe(3);
    expect(stats.warnings).toEqual(['truncated from 8 to 3 slides']);
    expect(await readFile(stats.extracted_text_path, 'utf8')).toMatch(
      /^\[Slide 1\]\nRaft: an understandable consensus algorithm/,
    );
  });
});

describe('xsb decks generate', () => {
  const GENERATE_BASELINE = ['decks', 'generate', '--run-sheet', 'fixtures/run-sheets/baseline.csv'];

  it('generates the fixture run sheet offline, then skips everything on a re-run', async () => {
    const args = [...GENERATE_BASELINE, '--run', 'demo', '--json'];
    const first = await run(args);
    expect(first.stderr).not.toMatch(/ERROR/);
    expect(first.code).toBe(0);
    expect(deckBatchSummarySchema.parse(JSON.parse(first.stdout))).toMatchObject({ done: 4, failed: 0 });
    const second = await run(args);
    expect(JSON.parse(second.stdout)).toMatchObject({ done: 0, skipped: 4 });
    const shard = await run([...args, '--shard', '1/2', '--force']);
    // md5 % 2 of the three case labels (python3): cs_raft_consensus 1, energy_heat_pump_pilot 1, ocean_coral_bleaching 0.
    expect(JSON.parse(shard.stdout).rows.map((row: { case_label: string }) => row.case_label)).toEqual([
      'cs_raft_consensus',
      'cs_raft_consensus',
      'energy_heat_pump_pilot',
    ]);
    // Three passes over the fixture sheet (seven decks written): more than the default under load.
  }, 120_000);

  it('generates one deck from --source and --case without a run sheet', async () => {
    const result = await run(
      'decks generate --source fixtures/sources/cs_raft_consensus/source.md --case raft --condition audience_conditioned --audience learners --max-slides 4 --out raft.pptx',
    );
    expect(result.code).toBe(0);
    const inspected = await run(['decks', 'inspect', 'raft.pptx', '--json']);
    const deck = JSON.parse(inspected.stdout);
    expect(deck.slide_count).toBe(4);
    expect(deck.slides[0].visible_text).toContain('For learners');
  });

  it('exits 2 on a malformed --shard or a missing run sheet, and 1 when a row fails', async () => {
    const bad = await run([...GENERATE_BASELINE, '--shard', '3/2']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/ERROR: --shard 3\/2/);
    await writeFile(
      join(root, 'sheet.csv'),
      'system,condition,audience,case_label,source_document,prompt_path,output_deck_path\nxsb-baseline,audience_agnostic,all,gone,missing.md,,\n',
    );
    const missing = await run(['decks', 'generate', '--run-sheet', 'no-such-sheet.csv']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`ERROR: run sheet ${join(root, 'no-such-sheet.csv')} does not exist\n`);
    const refused = await run(['decks', 'generate', '--run-sheet', 'sheet.csv']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/line 2, source_document: missing\.md does not exist/);
    // A row that fails while its deck is made (a source without sentences) is exit 1, the batch goes on.
    await writeFile(join(root, 'blank.md'), '#\n');
    await writeFile(
      join(root, 'sheet.csv'),
      'system,condition,audience,case_label,source_document,prompt_path,output_deck_path\nxsb-baseline,audience_agnostic,all,blank,blank.md,,\n',
    );
    const failed = await run(['decks', 'generate', '--run-sheet', 'sheet.csv']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/ERROR: .*blank\.md/);
  });
});

const HEADER = 'system,condition,audience,case_label,source_document,prompt_path,output_deck_path';

describe('a run sheet is checked before any deck is made', () => {
  // `--data data` with the shipped cases in data/sources/, as `xsb sources` expects them.
  beforeEach(() => copyRepoFixtures(['sources'], join(root, 'data')));
  const sheet = (rows: string[]) => writeFile(join(root, 'data', 'sheet.csv'), [HEADER, ...rows].join('\n'));
  const generate = () => run('decks generate --run-sheet data/sheet.csv --run r');

  it('lists every bad row by line and field, exits 2 and writes nothing', async () => {
    await sheet([
      'xsb-baseline,audience_agnostic,all,cs_raft_consensus,sources/cs_raft_consensus/source.md,,',
      'xsb-baseline,audience_agnostic,all,cs_raft_consensuss,sources/cs_raft_consensus/source.md,,',
      'xsb-baseline,audience_agnostic,all,ocean_coral_bleaching,sources/ocean_coral_bleaching/gone.html,,',
      'xsb-baseline,audience_conditioned,learners,ocean_coral_bleaching,sources/energy_heat_pump_pilot/source.pdf,,',
      'xsb-baselin,audience_agnostic,all,energy_heat_pump_pilot,sources/energy_heat_pump_pilot/source.pdf,,',
      'xsb-baseline,audience_conditioned,teachers,energy_heat_pump_pilot,sources/energy_heat_pump_pilot/source.pdf,,',
      'xsb-baseline,agnostic,all,energy_heat_pump_pilot,sources/energy_heat_pump_pilot/source.pdf,,',
    ]);
    const result = await generate();
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe(`ERROR: ${join(root, 'data', 'sheet.csv')}: 6 problems; no deck was made:`);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(
        /^ {2}line 3, case_label: case "cs_raft_consensuss" has no sources: .*\(did you mean "cs_raft_consensus"\?\)/,
      ),
      expect.stringMatching(
        /^ {2}line 4, source_document: sources\/ocean_coral_bleaching\/gone\.html does not exist/,
      ),
      expect.stringMatching(
        /^ {2}line 5, source_document: sources\/energy_heat_pump_pilot\/source\.pdf is the source of case "energy_heat_pump_pilot", not of case "ocean_coral_bleaching"/,
      ),
      expect.stringMatching(
        /^ {2}line 6, system: unknown system "xsb-baselin" \(did you mean "xsb-baseline"\?\)/,
      ),
      expect.stringMatching(/^ {2}line 7, audience: no audience profile "teachers"/),
      expect.stringMatching(/^ {2}line 8, condition: /),
      "  add your own audience profiles with --audiences FILE; SlideTailor rows go through `xsb decks run-slidetailor`, other tools' decks through `xsb decks import`",
    ]);
    expect(existsSync(join(root, 'data', 'runs'))).toBe(false);
  });

  it('a sheet without a case_label column, or with only an unknown system, exits 2 and leaves no folder', async () => {
    await writeFile(
      join(root, 'data', 'sheet.csv'),
      'system,condition,audience,source_document\nxsb-baseline,audience_agnostic,all,x.md\n',
    );
    const missing = await generate();
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^ERROR: .*sheet\.csv:1: the run sheet lacks column case_label/);
    await sheet([
      'xsb-basline,audience_agnostic,all,cs_raft_consensus,sources/cs_raft_consensus/source.md,,',
    ]);
    const misspelled = await generate();
    expect(misspelled.code).toBe(2);
    expect(existsSync(join(root, 'data', 'runs', 'r', 'decks', 'xsb-basline'))).toBe(false);
    expect(existsSync(join(root, 'data', 'runs'))).toBe(false);
  });

  it('a misspelled key of xsb.config.* exits 2 naming the nearest known key', async () => {
    await writeFile(join(root, 'xsb.config.yaml'), 'generator:\n  mine:\n    command: [gen, "{out}"]\n');
    await sheet([
      'xsb-baseline,audience_agnostic,all,cs_raft_consensus,sources/cs_raft_consensus/source.md,,',
    ]);
    const result = await generate();
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^ERROR: invalid configuration: unknown key "generator" \(did you mean "generators"\?\)/,
    );
    expect(existsSync(join(root, 'data', 'runs'))).toBe(false);
  });
});

describe('xsb decks import checks, and xsb decks remove', () => {
  beforeEach(() => copyRepoFixtures(['sources'], join(root, 'data')));

  it('refuses an unknown case or audience before importing anything (exit 2); --strict refuses an empty deck', async () => {
    await mkdir(join(root, 'exports', 'audience_conditioned', 'learner'), { recursive: true });
    await copyFile(
      join(root, 'fixtures/decks/notebooklm/cs_raft_consensus.pdf'),
      join(root, 'exports', 'Raft notes.pdf'),
    );
    await copyFile(
      join(root, 'fixtures/decks/notebooklm/cs_raft_consensus.pdf'),
      join(root, 'exports', 'audience_conditioned', 'learner', 'cs_raft_consensus.pdf'),
    );
    const bad = await run('decks import --system notebooklm --from exports --run r');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/ERROR: .*exports: 2 problems; no deck was imported:/);
    expect(bad.stderr).toMatch(/unknown audience "learner" \(did you mean "learners"\?\)/);
    expect(bad.stderr).toMatch(/the file name "Raft notes\.pdf" names no case of the data folder/);
    expect(existsSync(join(root, 'data', 'runs'))).toBe(false);

    await rm(join(root, 'exports'), { recursive: true });
    await mkdir(join(root, 'exports'));
    await writeFile(
      join(root, 'exports', 'cs_raft_consensus.pptx'),
      buildTestPptx({ slides: [{ fileNumber: 1 }] }),
    );
    const strict = await run('decks import --system notebooklm --from exports --run r --strict');
    expect(strict.code).toBe(2);
    expect(strict.stderr).toMatch(
      /cs_raft_consensus\.pptx: the deck has no visible words \(refused in strict mode\)/,
    );
    const lenient = await run('decks import --system notebooklm --from exports --run r');
    expect(lenient.code).toBe(0);
    expect(lenient.stderr).toBe(
      'WARNING: cs_raft_consensus.pptx: the deck has no visible words; imported anyway (strict mode refuses it)\n',
    );
  });

  it('removes a system from a run and says what it removed; an unknown system exits 2 naming the known ones', async () => {
    await writeFile(
      join(root, 'data', 'sheet.csv'),
      [
        HEADER,
        'xsb-baseline,audience_agnostic,all,cs_raft_consensus,sources/cs_raft_consensus/source.md,,',
      ].join('\n'),
    );
    expect((await run('decks generate --run-sheet data/sheet.csv --run r')).code).toBe(0);
    expect(
      (await run('decks import --system notebooklm --from fixtures/decks/notebooklm --run r')).code,
    ).toBe(0);
    const unknown = await run('decks remove --system notebooklmm --run r');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      'ERROR: unknown system "notebooklmm" in run r (did you mean "notebooklm"?) (known: notebooklm, xsb-baseline)\n',
    );
    const removed = await run('decks remove --system notebooklm --run r');
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe(
      'removed runs/r/decks/notebooklm\nnotebooklm: 1 folder or file removed from run r; run `xsb aggregate` to update the summary\n',
    );
    expect(await readdir(join(root, 'data', 'runs', 'r', 'decks'))).toEqual([
      'batch_summary.json',
      'xsb-baseline',
    ]);
    const oneCase = await run('decks remove --system xsb-baseline --case cs_raft_consensus --run r --json');
    expect(JSON.parse(oneCase.stdout)).toEqual({
      system: 'xsb-baseline',
      caseLabel: 'cs_raft_consensus',
      removed: ['runs/r/decks/xsb-baseline/audience_agnostic/all/cs_raft_consensus'],
    });
  });
});

describe('xsb decks import and prepare-slidetailor', () => {
  it('imports NotebookLM PDFs idempotently', async () => {
    const args = 'decks import --system notebooklm --from fixtures/decks/notebooklm --run demo';
    const first = await run(args);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^1 imported, 0 unchanged, 0 skipped/);
    const second = await run(args);
    expect(second.stdout).toMatch(/^0 imported, 1 unchanged, 0 skipped/);
  });

  it('runs prepared SlideTailor rows through a stand-in command', async () => {
    await run('decks prepare-slidetailor --run-sheet fixtures/run-sheets/slidetailor.csv --run demo');
    // The stand-in copies the fixture PDF deck to the output path its config names.
    await writeFile(
      join(root, 'stand-in.mjs'),
      "import { copyFileSync, readFileSync } from 'node:fs';\nconst config = JSON.parse(readFileSync(process.argv[2], 'utf8'));\ncopyFileSync(process.argv[3], config.output_deck_path);\n",
    );
    const command = `${process.execPath} stand-in.mjs {config} fixtures/decks/notebooklm/cs_raft_consensus.pdf`;
    const result = await run([
      'decks',
      'run-slidetailor',
      '--run',
      'demo',
      '--command',
      command,
      '--audience',
      'decision_makers',
    ]);
    expect(result.stderr).not.toMatch(/ERROR/);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/1 row selected of 2: 1 done, 0 skipped, 0 failed/);
  });

  it('prepares SlideTailor rows for PDF sources and reports the others as skipped', async () => {
    const result = await run(
      'decks prepare-slidetailor --run-sheet fixtures/run-sheets/slidetailor.csv --run demo',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^2 rows prepared, 1 skipped/);
    expect(result.stderr).toMatch(
      /SKIPPED: cs_raft_consensus \(line 4\): .*source\.md: SlideTailor prepares PDF sources only/,
    );
    const sheet = await readFile(
      join(root, 'data', 'runs', 'demo', 'slidetailor', 'slidetailor_run_sheet.csv'),
      'utf8',
    );
    expect(sheet.split('\n')[0]).toBe(
      'system,condition,audience,case_label,source_document,prompt_path,output_deck_path,config_path,template_mode',
    );
  });
});

describe('missing inputs are usage errors (exit 2) on every decks command', () => {
  it.each([
    ['decks inspect nothing.pptx', 'deck'],
    ['decks render nothing.pptx --out png', 'deck'],
    ['decks generate --source nothing.md --case c --out deck.pptx', 'source'],
    ['decks generate --source nothing.md --case c', 'source'],
    ['decks import --system notebooklm --from nothing', 'folder'],
  ])('%s', async (args, what) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^ERROR: ${what} ${root}/nothing(\\.\\w+)? does not exist`));
    expect(existsSync(join(root, 'data'))).toBe(false);
  });

  it('an audience file that does not exist', async () => {
    const result = await run(
      'decks generate --source fixtures/sources/cs_raft_consensus/source.md --case c --out d.pptx --audiences none.yaml',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`ERROR: audience profiles file ${join(root, 'none.yaml')} does not exist\n`);
  });
});

describe('xsb decks generate --out', () => {
  it('writes only the deck, prints its path, and titles it from source_metadata.json', async () => {
    const result = await run(
      'decks generate --source fixtures/sources/energy_heat_pump_pilot/source.pdf --case heat --out out/heat.pptx',
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${join(root, 'out', 'heat.pptx')}\n`);
    expect(await readdir(join(root, 'out'))).toEqual(['heat.pptx']);
    expect(existsSync(join(root, 'data'))).toBe(false);
    const deck = JSON.parse((await run('decks inspect out/heat.pptx --json')).stdout);
    expect(deck.slides[0].visible_text).toBe('Riverton Heat Pump Pilot: Final Report 2024\nPolicy briefing');
  });

  it('refuses --out with --run-sheet', async () => {
    const result = await run('decks generate --run-sheet fixtures/run-sheets/baseline.csv --out x.pptx');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^ERROR: --out names the file of one deck/);
  });
});

/** Every deck of a batch passes `xsb rubric check` (today's checks) and the stricter layout rules. */
async function expectEveryDeckPresentable(summary: DeckBatchSummary): Promise<void> {
  const done = summary.rows.filter((row) => row.status === 'done');
  expect(done.length).toBe(summary.rows.length);
  for (const row of done) {
    const deckPath = join(root, 'data', row.output_deck_path);
    const check = await run(['rubric', 'check', deckPath, '--json']);
    const failed = JSON.parse(check.stdout).checks.filter(
      (item: { passed: boolean | null }) => item.passed === false,
    );
    expect(failed, `${row.output_deck_path}`).toEqual([]);
    expect(check.code).toBe(0);
    const deck = JSON.parse((await run(['decks', 'inspect', deckPath, '--json'])).stdout);
    expect(presentableDeckViolations(deck), row.output_deck_path).toEqual([]);
  }
}

const BOTH_CONDITIONS = [
  'system,condition,audience,case_label,source_document,prompt_path,output_deck_path',
  ...[
    'cs_raft_consensus/source.md',
    'energy_heat_pump_pilot/source.pdf',
    'ocean_coral_bleaching/source.html',
  ].flatMap((source) => {
    const label = source.split('/')[0];
    return [
      `xsb-baseline,audience_agnostic,all,${label},../sources/${source},,`,
      `xsb-baseline,audience_conditioned,learners,${label},../sources/${source},,`,
      `xsb-baseline,audience_conditioned,decision_makers,${label},../sources/${source},,`,
    ];
  }),
].join('\n');

describe('every deck the baseline writes passes our own layout checks', () => {
  it('lexical planner, both conditions, every fixture source', async () => {
    await writeFile(join(root, 'fixtures', 'run-sheets', 'both.csv'), BOTH_CONDITIONS);
    const result = await run('decks generate --run-sheet fixtures/run-sheets/both.csv --run lexical --json');
    expect(result.code).toBe(0);
    await expectEveryDeckPresentable(deckBatchSummarySchema.parse(JSON.parse(result.stdout)));
  }, 120_000);

  describe('model planner through the fake server', () => {
    let server: FakeLlmServer;
    beforeAll(async () => {
      server = await startFakeLlmServer();
    });
    afterAll(() => server.close());

    it('both conditions: repeated and surplus bullets from the model never reach a slide', async () => {
      // A careless model: no subtitle, a repeated bullet, eight bullets on one slide, a slide of repeats only.
      const bullets = Array.from(
        { length: 7 },
        (_, index) => `Finding number ${index + 1} of the source is stated here.`,
      );
      server.setHandler(() => ({
        text: JSON.stringify({
          title: 'Planned by a model',
          subtitle: '',
          slides: [
            { title: 'Findings', bullets: [...bullets, 'finding number 1 of the source is stated here'] },
            { title: 'Repeats', bullets: [bullets[0], bullets[1]] },
            {
              title: 'Figures',
              bullets: ['Two figures from the source.'],
              table: { columns: ['a', 'b'], rows: [['1', '2']] },
            },
          ],
        }),
      }));
      await writeFile(join(root, 'fixtures', 'run-sheets', 'both.csv'), BOTH_CONDITIONS);
      const result = await runXsb(
        'decks generate --run-sheet fixtures/run-sheets/both.csv --run model --judge openai:gpt-test --json',
        {
          cwd: root,
          env: { PATH: process.env.PATH ?? '', ...fakeProviderEnv(server), XSB_NO_CACHE: '1' },
        },
      );
      expect(result.stderr).not.toMatch(/ERROR/);
      expect(result.code).toBe(0);
      const summary = deckBatchSummarySchema.parse(JSON.parse(result.stdout));
      await expectEveryDeckPresentable(summary);
      const deck = JSON.parse(
        (await run(['decks', 'inspect', join(root, 'data', summary.rows[0]!.output_deck_path), '--json']))
          .stdout,
      );
      // "Repeats" held only repeats and is gone; the model gave no subtitle, so the cover names the scene.
      expect(deck.slides[0].visible_text).toBe('Planned by a model\nAcademic research talk');
      expect(deck.slides.map((slide: { title: string }) => slide.title)).toEqual([
        'Planned by a model',
        'Findings',
        'Figures',
      ]);
      expect(deck.slides[1].visible_text.split('\n')).toHaveLength(7);
    }, 120_000);
  });
});

describe('command generators from the config', () => {
  it('runs a configured generator for its run-sheet rows, and an unknown placeholder is a config error', async () => {
    await writeFile(
      join(root, 'gen.mjs'),
      "import { copyFileSync } from 'node:fs';\ncopyFileSync(process.argv[2], process.argv[3]);\n",
    );
    const config = (command: string[]) =>
      writeFile(
        join(root, 'xsb.config.json'),
        JSON.stringify({ generators: { mine: { command, timeout_s: 30 } } }),
      );
    await config([
      process.execPath,
      join(root, 'gen.mjs'),
      join(root, 'fixtures', 'decks', 'cs_raft_consensus.baseline.pptx'),
      '{out}',
    ]);
    await writeFile(
      join(root, 'sheet.csv'),
      'system,condition,audience,case_label,source_document,prompt_path,output_deck_path\nmine,audience_agnostic,all,raft,fixtures/sources/cs_raft_consensus/source.md,,\n',
    );
    const result = await run('decks generate --run-sheet sheet.csv --run ext --json');
    expect(result.stderr).not.toMatch(/ERROR/);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary.rows[0]).toMatchObject({
      system: 'mine',
      status: 'done',
      output_deck_path: 'runs/ext/decks/mine/audience_agnostic/all/raft/raft.pptx',
    });
    expect(existsSync(join(root, 'data', 'runs/ext/decks/mine/audience_agnostic/all/raft/stdout.log'))).toBe(
      true,
    );

    await config(['gen', '{output}']);
    const bad = await run('decks generate --run-sheet sheet.csv --run ext');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^ERROR: invalid configuration: "generators\.mine\.command\[1\]" unknown placeholder \{output\}/,
    );
  });
});

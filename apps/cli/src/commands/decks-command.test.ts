import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deckBatchSummarySchema, deckSchema } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
  });

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
    const failed = await run(['decks', 'generate', '--run-sheet', 'sheet.csv']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/ERROR: .*missing\.md: cannot read \(ENOENT/);
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
    expect(result.stdout).toMatch(/1 row\(s\) selected of 2: 1 done, 0 skipped, 0 failed/);
  });

  it('prepares SlideTailor rows for PDF sources and reports the others as skipped', async () => {
    const result = await run(
      'decks prepare-slidetailor --run-sheet fixtures/run-sheets/slidetailor.csv --run demo',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^2 row\(s\) prepared, 1 skipped/);
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

import { resolve } from 'node:path';
import { plural, progressListener, RunLayout, UsageError } from '@xsb/core';
import { type DesignRecord, type DesignRow, measureDeckDesign, runDesign } from '@xsb/design';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { collectList, configFlags, requireDeckFolder, requireExistingPath, rowFilters } from '../cli-options';
import type { CommandModule } from '../command-module';
import { reportExitCode } from '../exit-code';
import { printTable } from '../print-table';

interface DesignFlags {
  deck?: string;
  keepRenders?: string;
  data?: string;
  run?: string;
  system?: string[];
  condition?: string[];
  audience?: string[];
  case?: string[];
  force?: boolean;
  json?: boolean;
}

const DESCRIPTION =
  'design metrics from the rendered slides, no judge (contrast, colour, harmony, complexity, whitespace, balance; against a reference deck)';

const num = (value: number | null, digits = 2) => (value === null ? '–' : value.toFixed(digits));

/** `xsb design --deck FILE` or `xsb design --data D --run R`. */
export const designCommand: CommandModule = {
  name: 'design',
  register(program: Command, context: CliContext) {
    program
      .command('design')
      .description(DESCRIPTION)
      .option(
        '--deck <file>',
        'measure one PPTX or PDF deck and print its metrics (writes nothing unless --keep-renders)',
      )
      .option(
        '--keep-renders <dir>',
        'with --deck: write the exact page images measured, slide-<n>.png (1-based)',
      )
      .option('--data <dir>', 'data folder (default: config dataDir)')
      .option(
        '--run <name>',
        'write design.json (and reference.json) into every evaluation job of this run (default: config run)',
      )
      .option('--system <name>', 'only these systems (repeatable or comma-separated)', collectList)
      .option('--condition <name>', 'only these conditions', collectList)
      .option('--audience <name>', 'only these audiences', collectList)
      .option('--case <label>', 'only these cases', collectList)
      .option('--force', 'recompute jobs whose files are current')
      .option('--json', 'print the metrics (or the result rows) as JSON')
      .action(async (flags: DesignFlags) => {
        if (flags.deck !== undefined) await designOfDeck(context, flags);
        else await designOfRun(context, flags);
      });
  },
};

async function designOfDeck(context: CliContext, flags: DesignFlags): Promise<void> {
  const runFlags = (['run', 'data', 'system', 'condition', 'audience', 'case', 'force'] as const).filter(
    (name) => flags[name] !== undefined,
  );
  if (runFlags.length > 0)
    throw new UsageError(
      `--deck measures one deck; ${runFlags.map((name) => `--${name}`).join(', ')} select a run's decks: give one or the other`,
    );
  const deck = requireExistingPath('deck', resolve(context.io.cwd, flags.deck!));
  const keepRendersDir = flags.keepRenders ? resolve(context.io.cwd, flags.keepRenders) : undefined;
  const record = await measureDeckDesign(deck, keepRendersDir ? { keepRendersDir } : {});
  if (flags.json) context.printJson(record);
  else printDeckDesign(context, record);
  if (keepRendersDir) context.warn(`kept ${plural(record.slides.length, 'page image')} in ${keepRendersDir}`);
}

function printDeckDesign(context: CliContext, record: DesignRecord): void {
  printTable(
    context.print,
    [
      'slide',
      'colorful',
      'contrast min',
      'median',
      '<4.5',
      '<3',
      'harmony°',
      'complexity',
      'whitespace',
      'balance',
    ],
    record.slides.map((slide) => [
      String(slide.index),
      num(slide.colorfulness, 1),
      num(slide.contrast_min),
      num(slide.contrast_median),
      String(slide.contrast_below_4_5),
      String(slide.contrast_below_3),
      num(slide.harmony, 1),
      num(slide.complexity),
      num(slide.whitespace),
      num(slide.balance),
    ]),
    [1, 2, 3, 4, 5, 6, 7, 8, 9],
  );
  const { deck } = record;
  context.print(
    `deck (${plural(deck.slide_count, 'slide')}, rendered ${record.render.width_px} px wide by ${record.render.renderer}): mean colorfulness ${num(deck.colorfulness, 1)}, contrast min ${num(deck.contrast_min)}, harmony ${num(deck.harmony, 1)}°, complexity ${num(deck.complexity)}, whitespace ${num(deck.whitespace)}, balance ${num(deck.balance)}`,
  );
  for (const slide of record.slides.filter((s) => s.contrast_below_3 > 0))
    context.warn(
      `slide ${slide.index}: ${plural(slide.contrast_below_3, 'text element')} under 3:1 contrast (lowest ${num(slide.contrast_min)}:1)`,
    );
}

async function designOfRun(context: CliContext, flags: DesignFlags): Promise<void> {
  if (flags.keepRenders !== undefined) throw new UsageError('--keep-renders goes with --deck (one deck)');
  const { config } = context.loadConfig(configFlags(flags));
  const layout = new RunLayout(resolve(context.io.cwd, config.dataDir));
  requireDeckFolder(layout, config.run);
  const rows = await runDesign({
    layout,
    run: config.run,
    filters: rowFilters(flags),
    force: Boolean(flags.force),
    onEvent: progressListener(context.progress()),
  });
  if (flags.json) context.printJson(rows);
  else printRunRows(context, rows);
  if (rows.some((row) => row.status === 'failed')) reportExitCode(1);
}

function printRunRows(context: CliContext, rows: readonly DesignRow[]): void {
  printTable(
    context.print,
    ['job', 'status', 'reference'],
    rows.map((row) => [row.id, row.status, row.reference ? 'yes' : 'no']),
  );
  const count = (status: DesignRow['status']) => rows.filter((row) => row.status === status).length;
  context.print(`${count('done')} done, ${count('reused')} reused, ${count('failed')} failed`);
  for (const row of rows.filter((r) => r.status === 'failed')) context.warn(`ERROR: ${row.id}: ${row.error}`);
}

import { resolve } from 'node:path';
import {
  type Condition,
  conditionSchema,
  parseShard,
  plural,
  RunLayout,
  UsageError,
  type XsbConfig,
} from '@xsb/core';
import {
  BASELINE_SYSTEM,
  type DeckBatchSummary,
  type DeckRowFilters,
  defaultSlideTailorRunSheet,
  formatDeckText,
  generateBaselineDeckFromSource,
  generateDecksFromRunSheet,
  importExternalDecks,
  prepareSlideTailor,
  readDeck,
  readRunSheet,
  removeSystemFromRun,
  renderDeck,
  runSlideTailor,
  singleRowRunSheet,
  truncateDeck,
  writeDeckStats,
} from '@xsb/decks';
import { createJudge } from '@xsb/llm';
import { loadAudienceProfiles } from '@xsb/weights';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { collectList, configFlags, integerFlag, llmClientOptions, requireExistingPath } from '../cli-options';
import type { CommandModule } from '../command-module';
import { reportExitCode } from '../exit-code';
import { printTable } from '../print-table';

interface RowFilterFlags {
  condition?: string[];
  audience?: string[];
  case?: string[];
  shard?: string;
}

interface RunFlags extends RowFilterFlags {
  data?: string;
  run?: string;
  force?: boolean;
  json?: boolean;
  audiences?: string;
}

function addRowFilters(command: Command): Command {
  return command
    .option(
      '--condition <name>',
      'only rows of these conditions (repeatable or comma-separated)',
      collectList,
    )
    .option('--audience <id>', 'only rows for these audiences (repeatable or comma-separated)', collectList)
    .option('--case <label>', 'only rows of these case labels (repeatable or comma-separated)', collectList)
    .option('--shard <i/n>', 'only cases with md5(case_label) % n == i (as Python computes it)');
}

function parseCondition(value: string): Condition {
  const parsed = conditionSchema.safeParse(value);
  if (!parsed.success) {
    throw new UsageError(
      `--condition must be audience_agnostic or audience_conditioned, got ${JSON.stringify(value)}`,
    );
  }
  return parsed.data;
}

function rowFilters(flags: RowFilterFlags): DeckRowFilters {
  for (const condition of flags.condition ?? []) parseCondition(condition);
  return {
    ...(flags.condition?.length ? { conditions: flags.condition } : {}),
    ...(flags.audience?.length ? { audiences: flags.audience } : {}),
    ...(flags.case?.length ? { caseLabels: flags.case } : {}),
    ...(flags.shard ? { shard: parseShard(flags.shard, '--shard') } : {}),
  };
}

function runContext(context: CliContext, flags: { data?: string; run?: string; judge?: string }) {
  const loaded = context.loadConfig(configFlags(flags));
  const dataDir = resolve(context.io.cwd, loaded.config.dataDir);
  return { ...loaded, layout: new RunLayout(dataDir) };
}

async function profilesFor(context: CliContext, file: string | undefined) {
  const profiles = await loadAudienceProfiles(
    file ? requireExistingPath('audience profiles file', resolve(context.io.cwd, file)) : undefined,
  );
  return [...profiles.values()];
}

function printBatch(context: CliContext, summary: DeckBatchSummary, json: boolean | undefined): void {
  if (json) context.printJson(summary);
  else {
    printTable(
      context.print,
      ['system', 'condition', 'audience', 'case', 'status'],
      summary.rows.map((row) => [row.system, row.condition, row.audience, row.case_label, row.status]),
    );
    context.print(
      `${plural(summary.rows_selected, 'row')} selected of ${summary.rows_total}: ${summary.done} done, ${summary.skipped} skipped, ${summary.failed} failed`,
    );
  }
  for (const row of summary.rows) {
    if (row.status === 'failed') context.warn(`ERROR: ${row.message}`);
  }
  if (summary.failed > 0) reportExitCode(1);
}

function singleDeckFlags(context: CliContext, flags: GenerateFlags) {
  if (!flags.source || !flags.case?.[0]) {
    throw new UsageError('give --run-sheet <csv>, or --source <file> with --case <label> for a single deck');
  }
  return {
    sourceDocument: requireExistingPath('source', resolve(context.io.cwd, flags.source)),
    caseLabel: flags.case[0],
    condition: parseCondition(flags.condition?.[0] ?? 'audience_agnostic'),
    audience: flags.audience?.[0] ?? 'all',
  };
}

interface GenerateFlags extends RunFlags {
  runSheet?: string;
  source?: string;
  out?: string;
  judge?: string;
  maxSlides?: string;
}

function judgeFor(context: CliContext, config: XsbConfig, env: Record<string, string>) {
  return createJudge(config.judge, { ...llmClientOptions(context, config, env), stage: 'decks.outline' });
}

function registerInspect(decks: Command, context: CliContext): void {
  decks
    .command('inspect')
    .description('read a PPTX or PDF deck: slides in order, visible text, notes apart, elements and warnings')
    .argument('<deck>', 'the .pptx or .pdf file')
    .option('--json', 'print one JSON object (deck stats fields + slides[])')
    .option('--max-slides <n>', 'cut the deck to its first n slides')
    .option('--stats-dir <dir>', 'also write deck_stats.json and deck_text.txt into this folder')
    .action(async (deckArg: string, flags: { json?: boolean; maxSlides?: string; statsDir?: string }) => {
      const path = requireExistingPath('deck', resolve(context.io.cwd, deckArg));
      let deck = await readDeck(path);
      if (flags.maxSlides !== undefined)
        deck = truncateDeck(deck, integerFlag('--max-slides', flags.maxSlides, 0, 0));
      if (flags.statsDir) {
        const dir = resolve(context.io.cwd, flags.statsDir);
        await writeDeckStats(deck, {
          statsFile: resolve(dir, 'deck_stats.json'),
          textFile: resolve(dir, 'deck_text.txt'),
        });
      }
      if (flags.json) {
        context.printJson(deck);
        return;
      }
      context.print(
        `${path}: ${plural(deck.slide_count, 'slide')}, ${plural(deck.visible_word_count, 'visible word')}, parser ${deck.parser}`,
      );
      context.print(formatDeckText(deck).trimEnd());
      for (const warning of deck.warnings) context.warn(`WARNING: ${warning}`);
    });
}

async function runGenerate(context: CliContext, flags: GenerateFlags): Promise<void> {
  const { config, env, layout } = runContext(context, flags);
  const maxSlides = integerFlag('--max-slides', flags.maxSlides, 8, 2);
  if (flags.out) {
    if (flags.runSheet)
      throw new UsageError('--out names the file of one deck: use it with --source, not --run-sheet');
    // One deck to one file: nothing is written under the data folder (no deck tree, status or outline).
    const outputDeckPath = resolve(context.io.cwd, flags.out);
    await generateBaselineDeckFromSource({
      ...singleDeckFlags(context, flags),
      outputDeckPath,
      judge: judgeFor(context, config, env),
      audienceProfiles: await profilesFor(context, flags.audiences),
      maxSlides,
    });
    context.print(outputDeckPath);
    return;
  }
  const sheet = flags.runSheet
    ? await readRunSheet(requireExistingPath('run sheet', resolve(context.io.cwd, flags.runSheet)))
    : singleRowRunSheet({ system: BASELINE_SYSTEM, ...singleDeckFlags(context, flags) });
  const summary = await generateDecksFromRunSheet({
    sheet,
    layout,
    run: config.run,
    judge: judgeFor(context, config, env),
    audienceProfiles: await profilesFor(context, flags.audiences),
    generators: config.generators,
    environment: env,
    baseDir: context.io.cwd,
    filters: flags.runSheet ? rowFilters(flags) : {},
    force: Boolean(flags.force),
    maxSlides,
    progress: context.progress(),
  });
  printBatch(context, summary, flags.json);
}

function registerGenerate(decks: Command, context: CliContext): void {
  addRowFilters(
    decks
      .command('generate')
      .description(
        `generate decks from a run sheet (${BASELINE_SYSTEM} rows, and rows of generators configured under "generators"), or one ${BASELINE_SYSTEM} deck from --source and --case`,
      )
      .option(
        '--run-sheet <csv>',
        'run sheet CSV (system,condition,audience,case_label,source_document,prompt_path,output_deck_path)',
      )
      .option('--source <file>', 'single deck: the source document')
      .option(
        '--out <file>',
        'single deck: write only this PPTX (nothing under the data folder) and print its path; default: the normalized deck tree',
      )
      .option('--data <dir>', 'data folder (default: config dataDir)')
      .option('--run <name>', 'run name (default: config run)')
      .option(
        '--judge <spec>',
        'outline planner: lexical (offline, default) or anthropic:<model>, openai:<model>, replay:<store>',
      )
      .option('--audiences <file>', 'extra audience profiles (JSON or YAML)')
      .option('--max-slides <n>', 'most slides per deck including the title slide (default 8)')
      .option('--force', 'regenerate decks that already exist')
      .option('--json', 'print the batch summary as JSON'),
  ).action((flags: GenerateFlags) => runGenerate(context, flags));
}

interface ImportFlags {
  system: string;
  from: string;
  condition?: string;
  audience?: string;
  data?: string;
  run?: string;
  audiences?: string;
  strict?: boolean;
  force?: boolean;
  json?: boolean;
}

async function runImport(context: CliContext, flags: ImportFlags): Promise<void> {
  const { config, layout } = runContext(context, flags);
  const fromDir = requireExistingPath('folder', resolve(context.io.cwd, flags.from));
  const profiles = await profilesFor(context, flags.audiences);
  const result = await importExternalDecks({
    system: flags.system,
    fromDir,
    layout,
    run: config.run,
    condition: parseCondition(flags.condition ?? 'audience_agnostic'),
    ...(flags.audience ? { audience: flags.audience } : {}),
    audiences: profiles.map((profile) => profile.id),
    strict: Boolean(flags.strict),
    force: Boolean(flags.force),
  });
  for (const warning of result.warnings) context.warn(`WARNING: ${warning}`);
  if (flags.json) context.printJson(result.manifest);
  else {
    context.print(
      `${result.imported.length} imported, ${result.unchanged.length} unchanged, ${result.skipped.length} skipped; manifest ${result.manifestFile}`,
    );
  }
  for (const skipped of result.skipped) context.warn(`SKIPPED: ${skipped.file}: ${skipped.reason}`);
  if (result.skipped.length > 0) reportExitCode(1);
}

function registerImport(decks: Command, context: CliContext): void {
  decks
    .command('import')
    .description(
      'copy exported decks (e.g. NotebookLM PDFs named <case_label>.pdf) into the normalized deck tree',
    )
    .requiredOption('--system <name>', 'the system the decks come from, e.g. notebooklm')
    .requiredOption(
      '--from <dir>',
      'folder of exported decks (<case>.pdf, or <condition>/<audience>/<case>.pdf)',
    )
    .option('--condition <name>', 'condition for files directly in --from (default audience_agnostic)')
    .option('--audience <id>', 'audience for files directly in --from (default all)')
    .option('--data <dir>', 'data folder (default: config dataDir)')
    .option('--run <name>', 'run name (default: config run)')
    .option('--audiences <file>', 'extra audience profiles (JSON or YAML)')
    .option(
      '--strict',
      'refuse decks with no slides or no visible words (default: import them with a warning)',
    )
    .option('--force', 'replace imported decks whose content changed')
    .option('--json', 'print the manifest as JSON')
    .action((flags: ImportFlags) => runImport(context, flags));
}

interface RemoveFlags {
  system: string;
  case?: string;
  data?: string;
  run?: string;
  json?: boolean;
}

async function runRemove(context: CliContext, flags: RemoveFlags): Promise<void> {
  const { config, layout } = runContext(context, flags);
  const result = await removeSystemFromRun({
    layout,
    run: config.run,
    system: flags.system,
    ...(flags.case !== undefined ? { caseLabel: flags.case } : {}),
  });
  if (flags.json) {
    context.printJson(result);
    return;
  }
  for (const path of result.removed) context.print(`removed ${path}`);
  const what = result.caseLabel === null ? result.system : `${result.system}, case ${result.caseLabel}`;
  context.print(
    `${what}: ${plural(result.removed.length, 'folder or file', 'folders or files')} removed from run ${config.run}; run \`xsb aggregate\` to update the summary`,
  );
}

function registerRemove(decks: Command, context: CliContext): void {
  decks
    .command('remove')
    .description(
      "remove a system from a run: its decks, its evaluation job folders and metric copies (only one case's with --case)",
    )
    .requiredOption('--system <name>', 'the system to remove, e.g. a misspelled one')
    .option('--case <label>', 'only this case of the system')
    .option('--data <dir>', 'data folder (default: config dataDir)')
    .option('--run <name>', 'run name (default: config run)')
    .option('--json', 'print what was removed as JSON')
    .action((flags: RemoveFlags) => runRemove(context, flags));
}

function registerRender(decks: Command, context: CliContext): void {
  decks
    .command('render')
    .description('render slides to PNG (PDF directly; PPTX through LibreOffice)')
    .argument('<deck>', 'the .pptx or .pdf file')
    .requiredOption('--out <dir>', 'folder for slide-001.png …')
    .option('--scale <n>', 'pixels per point (default 2, about 144 dpi)')
    .option('--max-slides <n>', 'render only the first n slides')
    .action(async (deckArg: string, flags: { out: string; scale?: string; maxSlides?: string }) => {
      const scale = flags.scale === undefined ? 2 : Number(flags.scale);
      if (!Number.isFinite(scale) || scale <= 0 || scale > 8) {
        throw new UsageError(`--scale must be a number in (0, 8], got ${JSON.stringify(flags.scale)}`);
      }
      const files = await renderDeck(requireExistingPath('deck', resolve(context.io.cwd, deckArg)), {
        outDir: resolve(context.io.cwd, flags.out),
        scale,
        ...(flags.maxSlides !== undefined
          ? { maxSlides: integerFlag('--max-slides', flags.maxSlides, 0, 1) }
          : {}),
        env: context.io.env,
      });
      for (const file of files) context.print(file);
    });
}

type PrepareFlags = RunFlags & { runSheet: string; out?: string; template?: string };

async function runPrepareSlideTailor(context: CliContext, flags: PrepareFlags): Promise<void> {
  const { config, layout } = runContext(context, flags);
  const result = await prepareSlideTailor({
    sheet: await readRunSheet(requireExistingPath('run sheet', resolve(context.io.cwd, flags.runSheet))),
    layout,
    run: config.run,
    ...(flags.out ? { outDir: resolve(context.io.cwd, flags.out) } : {}),
    ...(flags.template
      ? { templatePath: requireExistingPath('template', resolve(context.io.cwd, flags.template)) }
      : {}),
    audienceProfiles: await profilesFor(context, flags.audiences),
    filters: rowFilters(flags),
  });
  if (flags.json) context.printJson(result);
  else
    context.print(
      `${plural(result.prepared, 'row')} prepared, ${result.skipped.length} skipped; run sheet ${result.runSheetFile}`,
    );
  for (const skipped of result.skipped) {
    context.warn(`SKIPPED: ${skipped.case_label} (line ${skipped.line}): ${skipped.reason}`);
  }
}

function registerPrepareSlideTailor(decks: Command, context: CliContext): void {
  addRowFilters(
    decks
      .command('prepare-slidetailor')
      .description(
        'build the SlideTailor dataset, configs, preferences and slidetailor_run_sheet.csv (PDF sources only)',
      )
      .requiredOption('--run-sheet <csv>', 'run sheet whose slidetailor rows to prepare')
      .option('--out <dir>', 'output folder (default <data>/runs/<run>/slidetailor)')
      .option('--template <file>', 'reference template deck for SlideTailor')
      .option('--audiences <file>', 'extra audience profiles (JSON or YAML)')
      .option('--data <dir>', 'data folder (default: config dataDir)')
      .option('--run <name>', 'run name (default: config run)')
      .option('--json', 'print the result as JSON'),
  ).action((flags: PrepareFlags) => runPrepareSlideTailor(context, flags));
}

type RunSlideTailorFlags = RunFlags & { command: string; runSheet?: string; timeoutMinutes?: string };

async function runRunSlideTailor(context: CliContext, flags: RunSlideTailorFlags): Promise<void> {
  const { config, layout } = runContext(context, flags);
  const sheetFile = flags.runSheet
    ? resolve(context.io.cwd, flags.runSheet)
    : defaultSlideTailorRunSheet(layout, config.run);
  const hint = flags.runSheet ? '' : 'run `xsb decks prepare-slidetailor` first';
  const summary = await runSlideTailor({
    sheet: await readRunSheet(requireExistingPath('run sheet', sheetFile, hint)),
    layout,
    run: config.run,
    command: flags.command,
    filters: rowFilters(flags),
    force: Boolean(flags.force),
    timeoutMs: integerFlag('--timeout-minutes', flags.timeoutMinutes, 120, 1) * 60_000,
    env: context.io.env,
    cwd: context.io.cwd,
    progress: context.progress(),
  });
  printBatch(context, summary, flags.json);
}

function registerRunSlideTailor(decks: Command, context: CliContext): void {
  addRowFilters(
    decks
      .command('run-slidetailor')
      .description('run prepared SlideTailor rows through an external command')
      .requiredOption(
        '--command <cmd>',
        'command per row, run without a shell; placeholders {config} {source} {preferences} {output} {case_label} {condition} {audience}',
      )
      .option(
        '--run-sheet <csv>',
        'prepared slidetailor_run_sheet.csv (default <data>/runs/<run>/slidetailor/slidetailor_run_sheet.csv)',
      )
      .option('--timeout-minutes <n>', 'give up on one row after n minutes (default 120)')
      .option('--data <dir>', 'data folder (default: config dataDir)')
      .option('--run <name>', 'run name (default: config run)')
      .option('--force', 'rerun rows whose deck exists')
      .option('--json', 'print the batch summary as JSON'),
  ).action((flags: RunSlideTailorFlags) => runRunSlideTailor(context, flags));
}

/** `xsb decks …`: stage 4, reading, generating, importing and rendering decks. */
export const decksCommand: CommandModule = {
  name: 'decks',
  register(program, context) {
    const decks = program
      .command('decks')
      .description('stage 4: read, generate, import and render slide decks');
    registerInspect(decks, context);
    registerGenerate(decks, context);
    registerImport(decks, context);
    registerRemove(decks, context);
    registerRender(decks, context);
    registerPrepareSlideTailor(decks, context);
    registerRunSlideTailor(decks, context);
  },
};

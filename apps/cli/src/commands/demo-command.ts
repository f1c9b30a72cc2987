import { dirname, join, resolve } from 'node:path';
import { plural, RunLayout } from '@xsb/core';
import { BASELINE_SYSTEM } from '@xsb/decks';
import { DEMO_IMPORTED_SYSTEM, DEMO_RUN, type RunDemoResult, runDemo } from '@xsb/eval';
import { describeJudge } from '@xsb/llm';
import type { CliContext } from '../cli-context';
import {
  addBatchFlags,
  type BatchFlags,
  batchOptionsFor,
  configFlags,
  modelClientOptions,
  parseTauA,
  requireExistingPath,
} from '../cli-options';
import type { CommandModule } from '../command-module';
import { reportExitCode } from '../exit-code';
import { locateFixtures } from '../shipped-fixtures';

interface DemoFlags extends BatchFlags {
  out?: string;
  sources?: string;
  judge?: string;
  tauA?: string;
  force?: boolean;
  json?: boolean;
  thumbnails?: string;
}

function printWhereFilesWent(context: CliContext, dataDir: string, reportFile: string): void {
  const run = `runs/${DEMO_RUN}`;
  const job = '<system>/<condition>/<audience>/<case>';
  const rows: Array<[string, string]> = [
    ['sources/<case>/', 'source document, source_metadata.json'],
    ['probes/<case>/', 'probes_deduped.jsonl, weights/<audience>.jsonl'],
    [`${run}/decks/${job}/`, 'the decks'],
    [`${run}/evaluations/${job}/`, 'deck_stats, probe_scores, correctness, metrics.json, run_manifest'],
    [`${run}/usage_ledger.jsonl`, 'every judge call'],
    [`${run}/summary/`, 'report.md (these tables), summary.json, summary.csv'],
  ];
  const width = Math.max(...rows.map(([path]) => path.length));
  context.print(`Files (spec 000 layout) under ${dataDir}/:`);
  for (const [path, what] of rows) context.print(`  ${path.padEnd(width)}  ${what}`);
  context.print(`report: ${reportFile}`);
}

/** `xsb demo`: the whole pipeline (stages 1–7) on the shipped fixtures, offline by default. */
export const demoCommand: CommandModule = {
  name: 'demo',
  register(program, context) {
    const command = program
      .command('demo')
      .description('run stages 1-7 on the shipped fixtures (3 cases, 3 audiences, baseline + imported decks)')
      .option('--out <dir>', 'output folder (default ./xsb-demo)')
      .option(
        '--sources <dir>',
        'source cases to use instead of the shipped three (one folder per case, e.g. fixtures/bench/sources); no imported system then',
      )
      .option(
        '--judge <spec>',
        'lexical (offline, default) or a model judge such as replay:fixtures/replay/demo.jsonl',
      )
      .option('--tau-a <x>', 'audience weight threshold for included probes (default 0.7)')
      .option('--force', 'redo every stage instead of reusing finished work');
    addBatchFlags(
      command,
      "<out>/data/runs/demo/batches/ (stage 4's deck planner stays online: it plans one deck at a time)",
    )
      .option('--json', 'print summary.json instead of the tables')
      .option('--thumbnails <size>', 'slide thumbnails in the HTML report: off, small (default) or large')
      .action(async (flags: DemoFlags) => {
        const tauA = flags.tauA === undefined ? undefined : parseTauA(flags.tauA);
        const { buildRunReport, parseThumbnailSize } = await import('@xsb/report');
        const thumbnails = parseThumbnailSize(flags.thumbnails);
        const { config, env } = context.loadConfig(configFlags(flags));
        const outDir = resolve(context.io.cwd, flags.out ?? 'xsb-demo');
        const batch = batchOptionsFor(
          context,
          flags,
          config,
          config.judge,
          new RunLayout(join(outDir, 'data')).batchStateDir(DEMO_RUN),
        );
        const started = performance.now();
        const result = await runDemo({
          outDir,
          ...(flags.sources !== undefined
            ? { sourcesDir: requireExistingPath('sources folder', resolve(context.io.cwd, flags.sources)) }
            : { fixturesDir: locateFixtures(context.io) }),
          judge: config.judge,
          ...(tauA !== undefined ? { tauA } : {}),
          force: flags.force ?? false,
          ...modelClientOptions(context, config, env, batch),
          progress: context.progress(),
          log: (line) => context.warn(line),
        });
        // The HTML report ends the demo; its thumbnails are cached, so a second demo renders nothing.
        const html = await buildRunReport({
          thumbnails,
          dataDir: result.dataDir,
          run: DEMO_RUN,
          out: join(dirname(result.summaryFiles.report), 'report.html'),
          env: context.io.env,
        });
        for (const problem of html.problems) context.warn(`problem: ${problem}`);
        const seconds = (performance.now() - started) / 1000;
        if (flags.json) context.printJson(result.summary);
        else printDemoSummary(context, result, flags.sources, config.judge, seconds);
        for (const failure of result.failures) context.warn(`failed: ${failure}`);
        if (result.failures.length > 0 || html.problems.length > 0) reportExitCode(1);
        const reportLine = `HTML report: ${html.file}`;
        if (flags.json) context.warn(reportLine);
        else context.print(reportLine);
      });
  },
};

/** The demo's tables, where its files went and what the judge did. */
function printDemoSummary(
  context: CliContext,
  result: RunDemoResult,
  sources: string | undefined,
  judge: string,
  seconds: number,
): void {
  const audiences = new Set(result.summary.groups.map((group) => group.audience)).size;
  const cases = new Set(result.summary.rows.map((row) => row.case_label)).size;
  context.print(
    sources === undefined
      ? `# xsb demo: decks by ${BASELINE_SYSTEM} (xsb's built-in generator) and ${DEMO_IMPORTED_SYSTEM} ` +
          `(an imported PDF export), scored for ${plural(audiences, 'audience')}`
      : `# xsb demo on ${plural(cases, 'case')} of ${sources}: decks by ${BASELINE_SYSTEM} (xsb's built-in generator), scored for ${plural(audiences, 'audience')}`,
  );
  context.print('');
  for (const line of result.tables) context.print(line);
  printWhereFilesWent(context, result.dataDir, result.summaryFiles.report);
  const offline = describeJudge(judge).kind === 'offline' ? ' (offline: no model, no tokens)' : '';
  context.print(
    `judge ${judge}${offline}: ${plural(result.judgeCalls, 'judge call')} this run; ${seconds.toFixed(1)} s`,
  );
}

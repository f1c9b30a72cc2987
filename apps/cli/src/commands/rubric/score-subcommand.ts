import { resolve } from 'node:path';
import { readJson, UsageError } from '@xsb/core';
import {
  classHasNoItems,
  type ErrorPolicy,
  type PresentBenchCountingRule,
  readPresentBenchResult,
  readPresentBenchWeights,
  readPythonYaml,
  rubricEvaluationSchema,
  type ScoreReport,
  scoreEvaluation,
  scorePresentBenchVerdicts,
  writePresentBenchFiles,
} from '@xsb/rubric';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import { requireExistingPath } from '../../cli-options';
import { reportExitCode } from '../../exit-code';
import { evaluationWeights } from './class-weights';
import { COUNTING_RULES, choice, ERROR_POLICIES, percent, printScores } from './rubric-flags';

interface ScoreFlags {
  presentbenchResult?: string;
  evaluation?: string;
  weights?: string;
  instance?: string;
  counting?: string;
  errors?: string;
  exportPresentbench?: string;
  json?: boolean;
}

/** PresentBench's own files: the result as PyYAML reads it, weights validated then read the same way. */
async function scoreResultFile(
  context: CliContext,
  flags: ScoreFlags,
  options: ScoreOptions,
): Promise<ScoreReport> {
  if (!flags.weights) throw new UsageError('--presentbench-result needs --weights judge_weights.yaml');
  if (flags.instance) throw new UsageError('--instance goes with --evaluation; give --weights here');
  const file = requireExistingPath(
    '--presentbench-result',
    resolve(context.io.cwd, flags.presentbenchResult as string),
  );
  const weightsFile = requireExistingPath('--weights', resolve(context.io.cwd, flags.weights));
  await readPresentBenchWeights(weightsFile);
  return scorePresentBenchVerdicts(await readPresentBenchResult(file), {
    ...options,
    weights: await readPythonYaml(weightsFile),
    file,
  });
}

interface ScoreOptions {
  errorPolicy: ErrorPolicy;
  countingRule: PresentBenchCountingRule;
}

/** Checks the flags before any file is read (usage errors first, exit 2). */
function scoreOptions(flags: ScoreFlags): ScoreOptions {
  if (Boolean(flags.presentbenchResult) === Boolean(flags.evaluation)) {
    throw new UsageError('give exactly one of --presentbench-result or --evaluation');
  }
  if (flags.exportPresentbench && !flags.evaluation)
    throw new UsageError('--export-presentbench needs --evaluation');
  return {
    errorPolicy: choice<ErrorPolicy>(flags.errors, ERROR_POLICIES, '--errors', 'report'),
    countingRule: choice<PresentBenchCountingRule>(flags.counting, COUNTING_RULES, '--counting', 'all-items'),
  };
}

/** Both scores of an xsb evaluation, written as PresentBench files too with `--export-presentbench`. */
async function scoreEvaluationFile(
  context: CliContext,
  flags: ScoreFlags,
  options: ScoreOptions,
): Promise<ScoreReport> {
  const file = requireExistingPath('--evaluation', resolve(context.io.cwd, flags.evaluation as string));
  const evaluation = await readJson(file, rubricEvaluationSchema);
  const weights = await evaluationWeights(context, evaluation, flags);
  const report = scoreEvaluation(evaluation, { ...options, weights });
  if (flags.exportPresentbench) {
    const out = resolve(context.io.cwd, flags.exportPresentbench);
    const written = await writePresentBenchFiles(
      evaluation,
      { kind: 'file', file: out },
      { weights, errors: options.errorPolicy === 'as-no' ? 'as-no' : 'as-null' },
    );
    if (!flags.json) context.print(`wrote ${written.result}${written.score ? ` and ${written.score}` : ''}`);
  }
  return report;
}

/** The text output: both scores, then each PresentBench class, then why scoring.py cannot score it. */
function printScoreReport(context: CliContext, report: ScoreReport): void {
  printScores(context, report);
  for (const [section, classes] of Object.entries(report.presentbench.classes)) {
    for (const [id, info] of Object.entries(classes)) {
      // The JSON carries scoring.py's 0.0 for a class without items; people read n/a: nothing was scored.
      const shown = classHasNoItems(info) ? null : info.score_percent;
      const value = `${percent(shown)} (${info.yes_count} / ${info.valid_count} yes)`;
      context.print(`  ${section} class ${id}: ${value}`);
    }
  }
  if (report.presentbench.unscoreable_reason) {
    context.print(
      `PresentBench's scoring.py cannot score this result: ${report.presentbench.unscoreable_reason}`,
    );
  }
}

export function registerScore(rubric: Command, context: CliContext): void {
  rubric
    .command('score')
    .description('score verdicts: a PresentBench result YAML (as its scoring.py) or an xsb evaluation')
    .option(
      '--presentbench-result <file>',
      'PresentBench judge result YAML (material_independent / material_dependent)',
    )
    .option('--evaluation <file>', 'an xsb evaluation (<deck>.xsb_rubric_<judge>.json)')
    .option(
      '--weights <file>',
      'judge_weights.yaml (required with --presentbench-result; with --evaluation it overrides the recorded weights)',
    )
    .option(
      '--instance <path>',
      'with --evaluation: take the class weights from its instance file or PresentBench case folder',
    )
    .option(
      '--counting <rule>',
      'all-items (default: scoring.py at main) | yes-no-only (PresentBench 65068ca)',
    )
    .option(
      '--errors <policy>',
      'report (default: classes with unanswered items read n/a) | as-no (unanswered items score as "no")',
    )
    .option(
      '--export-presentbench <file>',
      'with --evaluation: also write its verdicts there as a PresentBench result YAML (see `rubric export`)',
    )
    .option('--json', 'print both scores as JSON')
    .action(async (flags: ScoreFlags) => {
      const options = scoreOptions(flags);
      const report = flags.presentbenchResult
        ? await scoreResultFile(context, flags, options)
        : await scoreEvaluationFile(context, flags, options);
      if (report.paper.error_count > 0 && options.errorPolicy === 'report') reportExitCode(1);
      if (flags.json) {
        context.printJson(report);
        return;
      }
      printScoreReport(context, report);
    });
}

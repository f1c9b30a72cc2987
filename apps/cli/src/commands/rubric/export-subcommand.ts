import { dirname, resolve } from 'node:path';
import { readJson, UsageError } from '@xsb/core';
import {
  type ErrorExport,
  PRESENTBENCH_TIMESTAMP,
  type PresentBenchTarget,
  presentBenchModelName,
  rubricEvaluationSchema,
  writePresentBenchFiles,
} from '@xsb/rubric';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import { requireExistingPath } from '../../cli-options';
import { evaluationWeights } from './class-weights';
import { choice } from './rubric-flags';

interface ExportFlags {
  evaluation: string;
  outDir?: string;
  out?: string;
  errors?: string;
  weights?: string;
  instance?: string;
  model?: string;
  timestamp?: string;
  json?: boolean;
}

/** `<YYYY-MM-DD_HH-MM-SS>` in local time, as judge.py names its files; a date that does not exist is refused. */
function timestampFlag(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const parts = PRESENTBENCH_TIMESTAMP.test(value) ? value.split(/[-_]/).map(Number) : [];
  const [year = 0, month = 0, day = 0, hours = 0, minutes = 0, seconds = 0] = parts;
  const date = new Date(year, month - 1, day, hours, minutes, seconds);
  const roundTrips =
    parts.length === 6 &&
    date.getFullYear() === year &&
    date.getMonth() === month - 1 &&
    date.getDate() === day &&
    date.getHours() === hours &&
    date.getMinutes() === minutes &&
    date.getSeconds() === seconds;
  if (!roundTrips) throw new UsageError(`--timestamp must look like 2026-01-27_12-34-56, got "${value}"`);
  return date;
}

export function registerExport(rubric: Command, context: CliContext): void {
  rubric
    .command('export')
    .description(
      'write a stored xsb evaluation as PresentBench files: <model>_<YYYY-MM-DD_HH-MM-SS>.yaml and its _score.yaml, which PresentBench’s scoring.py, scoring_all.py and judge.py resume read',
    )
    .requiredOption('--evaluation <file>', 'an xsb evaluation (<deck>.xsb_rubric_<judge>.json)')
    .option(
      '--out-dir <dir>',
      'folder for the timestamped files (default: the evaluation’s folder, i.e. beside the deck)',
    )
    .option(
      '--out <file>',
      'write the result to this exact file instead (the score goes to <name>_score.yaml)',
    )
    .option(
      '--errors <policy>',
      'as-null (default: unanswered items as judge.py stores them, answer: null, so its resume judges them again) | as-no (answer "no": a file scoring.py can score)',
    )
    .option(
      '--weights <file>',
      'judge_weights.yaml for the score file (default: the weights the evaluation recorded)',
    )
    .option('--instance <path>', 'take the class weights from this instance file or PresentBench case folder')
    .option(
      '--model <name>',
      'the judge model name in the file name, as PresentBench’s --model (default: the judge’s model)',
    )
    .option('--timestamp <time>', 'the time in the file name, YYYY-MM-DD_HH-MM-SS (default: now)')
    .option('--json', 'print the written paths as JSON')
    .action(async (flags: ExportFlags) => {
      const errors = choice<ErrorExport>(flags.errors, ['as-null', 'as-no'] as const, '--errors', 'as-null');
      if (flags.out && flags.outDir) throw new UsageError('give --out or --out-dir, not both');
      if (flags.out && (flags.model || flags.timestamp))
        throw new UsageError('--model and --timestamp name timestamped files; --out names the file itself');
      const now = timestampFlag(flags.timestamp);
      const file = requireExistingPath('--evaluation', resolve(context.io.cwd, flags.evaluation));
      const evaluation = await readJson(file, rubricEvaluationSchema);
      const weights = await evaluationWeights(context, evaluation, flags);
      const target: PresentBenchTarget = flags.out
        ? { kind: 'file', file: resolve(context.io.cwd, flags.out) }
        : {
            kind: 'results-dir',
            dir: flags.outDir ? resolve(context.io.cwd, flags.outDir) : dirname(file),
            model: flags.model ?? presentBenchModelName(evaluation.judge),
          };
      const written = await writePresentBenchFiles(evaluation, target, {
        weights,
        errors,
        ...(now ? { now } : {}),
      });
      if (flags.json) {
        context.printJson({ evaluation: file, errors, result: written.result, score: written.score });
        return;
      }
      context.print(`wrote ${written.result}`);
      context.print(
        written.score
          ? `wrote ${written.score}`
          : 'no score file: some items are unanswered (PresentBench’s resume judges them again; --errors as-no writes a scoreable file)',
      );
    });
}

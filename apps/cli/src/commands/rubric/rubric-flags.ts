import { plural, UsageError } from '@xsb/core';
import { createJudge, type Judge } from '@xsb/llm';
import {
  dimensionCounts,
  type ErrorPolicy,
  KNOWN_LANGUAGES,
  RUBRIC_PARSERS,
  type RubricParser,
  type ScoreReport,
  type StandInMode,
  shownDimensionScore,
  shownPaperTotal,
} from '@xsb/rubric';
import type { CliContext } from '../../cli-context';
import { type BatchFlags, judgedStage, optionalIntegerFlag } from '../../cli-options';

export function choice<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  flag: string,
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T))
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')}, got "${value}"`);
  return value as T;
}

export function positiveNumber(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0)
    throw new UsageError(`${flag} must be a number > 0, got "${value}"`);
  return number;
}

/** `--language`: a code whose script the language check knows (`en`, `zh`, `zh-CN` …). */
export function languageFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const base = value.toLowerCase().split(/[-_]/)[0] ?? '';
  if (!KNOWN_LANGUAGES.includes(base)) {
    throw new UsageError(
      `--language must be one of ${KNOWN_LANGUAGES.join(', ')} (optionally with a region, e.g. zh-CN), got "${value}"`,
    );
  }
  return value;
}

/** The judge from config + `--judge`; its calls go to the config run's usage ledger, as every judged command's do. */
export const judgeFrom = (context: CliContext, judge: string | undefined): Judge =>
  batchedJudgeFrom(context, { judge }, '').judge;

/** {@link judgeFrom} with `--batch` (state in `stateDir`). */
export function batchedJudgeFrom(
  context: CliContext,
  flags: BatchFlags & { judge?: string },
  stateDir: string,
): { judge: Judge; batchConcurrency: number | undefined } {
  // Batched calls go to the config run's usage ledger too, at the batch price (`xsb usage --plan`).
  const { config, clientOptions, concurrency } = judgedStage(
    context,
    { batch: flags.batch, batchFallback: flags.batchFallback, judge: flags.judge },
    () => stateDir,
  );
  const judge = createJudge(config.judge, clientOptions);
  return { judge, batchConcurrency: judge.kind === 'offline' ? undefined : concurrency };
}

/**
 * Under `--batch`, no lone first item per tier: its prompt-cache warm-up means nothing in a batch,
 * which the provider processes in any order, and it would be a batch of its own.
 */
export function batchJudging(batchConcurrency: number | undefined, concurrencyFlag: string | undefined) {
  if (batchConcurrency === undefined) return {};
  return {
    warmPrefixCache: false,
    ...(concurrencyFlag === undefined ? { concurrency: batchConcurrency } : {}),
  };
}

export const STAND_IN_MODES = ['beside', 'replace', 'off'] as const;
export const ERROR_POLICIES = ['report', 'as-no'] as const;
export const COUNTING_RULES = ['all-items', 'yes-no-only'] as const;
export const SLIDE_COUNT_BASES = ['judged', 'delivered'] as const;

export const percent = (value: number | null): string => (value === null ? 'n/a' : `${value.toFixed(1)}%`);

export function printScores(context: CliContext, report: ScoreReport): void {
  // A dimension or total with unjudged items prints n/a and the counts, never a share of the judged few.
  for (const [dimension, score] of Object.entries(report.paper.dimensions)) {
    const shown = shownDimensionScore(score);
    context.print(
      `  ${dimension.padEnd(13)} ${percent(shown === null ? null : shown * 100).padStart(7)}  (${dimensionCounts(score)})`,
    );
  }
  const paperNote =
    report.paper.not_judged_count > 0 ? ` (${plural(report.paper.not_judged_count, 'item')} not judged)` : '';
  context.print(`paper total (mean of dimensions): ${percent(shownPaperTotal(report.paper))}${paperNote}`);
  const { not_judged_count: notJudged, unanswered_count: unanswered } = report.presentbench;
  const notes = [
    ...(notJudged > 0 ? [`${plural(notJudged, 'item')} not judged`] : []),
    ...(unanswered > 0 && report.paper.error_policy === 'report'
      ? [`${plural(unanswered, 'item')} unanswered`]
      : []),
  ];
  context.print(
    `PresentBench weighted total:      ${percent(report.presentbench.total_percent)}${notes.length ? ` (${notes.join(', ')})` : ''}`,
  );
  if (report.paper.error_count > 0) {
    context.print(
      `${plural(report.paper.error_count, 'item')} stayed unanswered (errors policy: ${report.paper.error_policy}; PresentBench's resume judges them again)`,
    );
  }
}

/** The judging flags `rubric eval` and `rubric run` share. */
export interface JudgingFlags {
  slideCountOn?: string;
  attachPdf?: boolean;
  judge?: string;
  force?: boolean;
  layoutChecks?: string;
  maxAttempts?: string;
  concurrency?: string;
  errors?: string;
  parse?: string;
  json?: boolean;
}

/** Declares the judging flags on `eval` / `run`. */
export function addJudgingFlags<T extends { option(flags: string, description: string): T }>(command: T): T {
  return command
    .option(
      '--judge <spec>',
      'lexical (offline: only check items are decided), anthropic:<model>, openai:<model>, replay:<store>',
    )
    .option(
      '--parse <reader>',
      'strict (default: PresentBench main judge.py — first box if yes/no, else the last, stored as given) | lenient (last verdict box, Yes!, **yes**, n/a tolerated)',
    )
    .option('--force', 'judge again even when a stored evaluation is current')
    .option(
      '--layout-checks <mode>',
      'beside (default) | replace | off: deterministic checks for matching LLM items',
    )
    .option('--max-attempts <n>', 'calls per item until an answer reads (default 5 strict, 3 lenient)')
    .option('--concurrency <n>', 'items judged at once (default 4; with --batch every item of the run)')
    .option('--errors <policy>', 'report (default) | as-no: how unanswered items count in the scores')
    .option(
      '--slide-count-on <deck>',
      'judged (default: the truncated deck, as PresentBench) | delivered (the deck as delivered, so an over-long deck fails)',
    )
    .option(
      '--attach-pdf',
      'also send a PDF deck to the judge as a document (multimodal judges see the design)',
    );
}

/** Checks the shared judging flags before any file is read (usage errors come first, exit 2). */
export function judgingOptions(flags: JudgingFlags) {
  const standIn = choice<StandInMode>(flags.layoutChecks, STAND_IN_MODES, '--layout-checks', 'beside');
  const slideCountOn = choice(flags.slideCountOn, SLIDE_COUNT_BASES, '--slide-count-on', 'judged');
  const errorPolicy = choice<ErrorPolicy>(flags.errors, ERROR_POLICIES, '--errors', 'report');
  const parser = choice<RubricParser>(flags.parse, RUBRIC_PARSERS, '--parse', 'strict');
  const maxAttempts = optionalIntegerFlag('--max-attempts', flags.maxAttempts, 1);
  const concurrency = optionalIntegerFlag('--concurrency', flags.concurrency, 1);
  return {
    errorPolicy,
    judging: {
      standIn,
      slideCountOn,
      parser,
      ...(maxAttempts ? { maxAttempts } : {}),
      ...(concurrency ? { concurrency } : {}),
    },
  };
}

import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import {
  readJson,
  rubricEvaluationSchema,
  rubricRunSummarySchema,
  UsageError,
  writeFileAtomic,
} from '@xsb/core';
import { readDeck } from '@xsb/decks';
import { createLlmClient, isOfflineJudge, type LlmClient } from '@xsb/llm';
import {
  alignWithHumans,
  cachedInputShare,
  EQUAL_CLASS_WEIGHTS,
  type ErrorPolicy,
  evaluateOrReuse,
  evaluationFilesFor,
  formatScoresCsv,
  humanAgreement,
  judgeHolistic,
  loadInstanceAt,
  type PresentBenchCountingRule,
  readHumanRankings,
  readMaterials,
  readPresentBenchResult,
  readPresentBenchWeights,
  readSystemScores,
  runHolistic,
  runLayoutChecks,
  runRubric,
  type ScoreReport,
  type StandInMode,
  scoreEvaluation,
  scorePresentBenchVerdicts,
  scoresFromRunSummaries,
  stringifyPresentBenchResult,
  toPresentBenchResult,
} from '@xsb/rubric';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { configFlags, integerFlag, modelClientOptions, requireExistingPath } from '../cli-options';
import type { CommandModule } from '../command-module';
import { reportExitCode } from '../exit-code';

function choice<T extends string>(
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

/** An optional whole-number flag >= 1; unset leaves the package default in force. */
function optionalPositiveInteger(value: string | undefined, flag: string): number | undefined {
  return value === undefined ? undefined : integerFlag(flag, value, 1, 1);
}

function positiveNumber(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0)
    throw new UsageError(`${flag} must be a number > 0, got "${value}"`);
  return number;
}

/** The judge client from config + `--judge`; `null` for the offline `lexical` judge. */
function judgeFrom(
  context: CliContext,
  judgeFlag: string | undefined,
): { client: LlmClient | null; judgeId: string } {
  const { config, env } = context.loadConfig(configFlags({ judge: judgeFlag }));
  if (isOfflineJudge(config.judge)) return { client: null, judgeId: config.judge };
  const client = createLlmClient(config.judge, modelClientOptions(context, config, env));
  return { client, judgeId: config.judge };
}

const STAND_IN_MODES = ['beside', 'replace', 'off'] as const;
const ERROR_POLICIES = ['report', 'as-no'] as const;
const COUNTING_RULES = ['all-items', 'yes-no-only'] as const;
const SLIDE_COUNT_BASES = ['delivered', 'judged'] as const;

function printScores(context: CliContext, report: ScoreReport): void {
  const percent = (value: number | null): string => (value === null ? 'n/a' : `${value.toFixed(1)}%`);
  for (const [dimension, score] of Object.entries(report.paper.dimensions)) {
    context.print(
      `  ${dimension.padEnd(13)} ${percent(score.score === null ? null : score.score * 100).padStart(7)}  (${score.yes} yes, ${score.no} no, ${score.not_applicable} not applicable, ${score.error} error, ${score.not_judged} not judged)`,
    );
  }
  context.print(`paper total (mean of dimensions): ${percent(report.paper.total_percent)}`);
  const notJudged = report.presentbench.not_judged_count;
  context.print(
    `PresentBench weighted total:      ${percent(report.presentbench.total_percent)}${notJudged > 0 ? ` (${notJudged} item(s) not judged)` : ''}`,
  );
  if (report.paper.error_count > 0) {
    context.print(
      `${report.paper.error_count} item(s) stayed unparseable (errors policy: ${report.paper.error_policy})`,
    );
  }
}

/** The judging flags `rubric eval` and `rubric run` share. */
interface JudgingFlags {
  slideCountOn?: string;
  attachPdf?: boolean;
  judge?: string;
  force?: boolean;
  layoutChecks?: string;
  maxAttempts?: string;
  concurrency?: string;
  errors?: string;
  json?: boolean;
}

interface EvalFlags extends JudgingFlags {
  instance: string;
  deck: string;
  dataRoot?: string;
}

interface RunFlags extends JudgingFlags {
  instances: string;
  results: string;
}

/** Checks the shared judging flags before any file is read (usage errors come first, exit 2). */
function judgingOptions(flags: JudgingFlags) {
  const standIn = choice<StandInMode>(flags.layoutChecks, STAND_IN_MODES, '--layout-checks', 'beside');
  const slideCountOn = choice(flags.slideCountOn, SLIDE_COUNT_BASES, '--slide-count-on', 'delivered');
  const errorPolicy = choice<ErrorPolicy>(flags.errors, ERROR_POLICIES, '--errors', 'report');
  const maxAttempts = optionalPositiveInteger(flags.maxAttempts, '--max-attempts');
  const concurrency = optionalPositiveInteger(flags.concurrency, '--concurrency');
  return {
    errorPolicy,
    judging: {
      standIn,
      slideCountOn,
      ...(maxAttempts ? { maxAttempts } : {}),
      ...(concurrency ? { concurrency } : {}),
    },
  };
}

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

interface AlignFlags {
  human: string;
  scores: string[];
  seed?: string;
  resamples?: string;
  json?: boolean;
}

interface CheckFlags {
  json?: boolean;
  slides?: string;
  language?: string;
  maxBullets?: string;
  minFont?: string;
  requireSource?: boolean;
}

function registerEval(rubric: Command, context: CliContext): void {
  rubric
    .command('eval')
    .description(
      'judge one deck against one instance, item by item (writes <deck>.xsb_rubric_<judge>.json beside the deck)',
    )
    .requiredOption('--instance <path>', 'instance.yaml|json, or a PresentBench case folder')
    .requiredOption('--deck <file>', 'the generated deck (.pptx or .pdf)')
    .option('--data-root <dir>', 'PresentBench data root (default: the folder above the case’s domain)')
    .option(
      '--judge <spec>',
      'lexical (offline: only check items are decided), anthropic:<model>, openai:<model>, replay:<store>',
    )
    .option('--force', 'judge again even when the evaluation beside the deck is current')
    .option(
      '--layout-checks <mode>',
      'beside (default) | replace | off: deterministic checks for matching LLM items',
    )
    .option('--max-attempts <n>', 'calls per item until the verdict reads (default 3)')
    .option('--concurrency <n>', 'items judged at once (default 4)')
    .option('--errors <policy>', 'report (default) | as-no: how unparseable items count in the paper score')
    .option(
      '--slide-count-on <deck>',
      'delivered (default) | judged: judged counts the truncated deck, as PresentBench does',
    )
    .option(
      '--attach-pdf',
      'also send a PDF deck to the judge as a document (multimodal judges see the design)',
    )
    .option('--json', 'print evaluation file, scores and token use as JSON')
    .action(async (flags: EvalFlags) => {
      const { errorPolicy, judging } = judgingOptions(flags);
      const instancePath = requireExistingPath('--instance', resolve(context.io.cwd, flags.instance));
      const deckPath = requireExistingPath('--deck', resolve(context.io.cwd, flags.deck));
      const { client, judgeId } = judgeFrom(context, flags.judge);
      const instance = await loadInstanceAt(
        instancePath,
        flags.dataRoot ? resolve(context.io.cwd, flags.dataRoot) : undefined,
      );
      const deck = await readDeck(deckPath);
      if (flags.attachPdf && deck.format !== 'pdf') {
        throw new UsageError('--attach-pdf needs a PDF deck; convert the PPTX to PDF first');
      }
      const files = evaluationFilesFor(deckPath, judgeId);
      const { evaluation, reused } = await evaluateOrReuse(
        {
          instance,
          deck,
          ...(flags.attachPdf ? { deckPdf: new Uint8Array(await readFile(deckPath)) } : {}),
          materials: await readMaterials(instance.materials),
          client,
          judgeId,
          ...judging,
          progress: context.progress(),
        },
        files,
        flags.force ?? false,
      );
      const scores = scoreEvaluation(evaluation, { weights: instance.weights, errorPolicy });
      if (scores.paper.error_count > 0) reportExitCode(1);
      if (flags.json) {
        context.printJson({
          evaluation_file: files.evaluation,
          presentbench_result_file: files.presentbenchResult,
          judge: judgeId,
          reused,
          truncated: evaluation.truncated,
          usage: { ...evaluation.usage, cached_input_share: cachedInputShare(evaluation.usage) },
          ...scores,
        });
        return;
      }
      context.print(
        `${instance.id}: ${evaluation.items.length} items, judge ${judgeId}${evaluation.truncated ? `, deck truncated to ${evaluation.judged_slide_count} slides` : ''}`,
      );
      printScores(context, scores);
      const share = cachedInputShare(evaluation.usage);
      if (share !== null)
        context.print(`input tokens served from the cached prefix: ${(share * 100).toFixed(1)}%`);
      context.print(
        reused
          ? `reused ${files.evaluation} (inputs unchanged; --force judges again)`
          : `wrote ${files.evaluation}`,
      );
    });
}

function registerRun(rubric: Command, context: CliContext): void {
  rubric
    .command('run')
    .description('evaluate every instance’s deck at <results>/<case>/generation_task/results/slides.pdf|pptx')
    .requiredOption('--instances <dir>', 'PresentBench data root, or a folder of instance.yaml files')
    .requiredOption('--results <dir>', 'the generator’s results root (same sub-paths as the instances)')
    .option('--judge <spec>', 'lexical (offline), anthropic:<model>, openai:<model>, replay:<store>')
    .option('--force', 'judge again even when an evaluation is current')
    .option('--layout-checks <mode>', 'beside (default) | replace | off')
    .option('--max-attempts <n>', 'calls per item until the verdict reads (default 3)')
    .option('--concurrency <n>', 'items judged at once (default 4)')
    .option('--errors <policy>', 'report (default) | as-no')
    .option(
      '--slide-count-on <deck>',
      'delivered (default) | judged: judged counts the truncated deck, as PresentBench does',
    )
    .option('--attach-pdf', 'also send PDF decks to the judge as documents')
    .option('--json', 'print the run summary as JSON')
    .action(async (flags: RunFlags) => {
      const { errorPolicy, judging } = judgingOptions(flags);
      const instancesDir = requireExistingPath('--instances', resolve(context.io.cwd, flags.instances));
      const resultsDir = requireExistingPath('--results', resolve(context.io.cwd, flags.results));
      const { client, judgeId } = judgeFrom(context, flags.judge);
      const { summary, summaryFile } = await runRubric({
        instancesDir,
        resultsDir,
        client,
        judgeId,
        force: flags.force ?? false,
        attachPdf: flags.attachPdf ?? false,
        errorPolicy,
        ...judging,
        progress: context.progress(),
      });
      if (
        summary.rows.some(
          (row) => row.status === 'failed' || row.status === 'missing_deck' || row.error_count > 0,
        )
      ) {
        reportExitCode(1);
      }
      if (flags.json) {
        context.printJson({ summary_file: summaryFile, ...summary });
        return;
      }
      const percent = (value: number | null): string => (value === null ? 'n/a' : `${value.toFixed(1)}%`);
      for (const row of summary.rows) {
        context.print(
          `${row.status.padEnd(12)} ${row.instance_id}${row.error ? `: ${row.error}` : `  paper ${percent(row.paper_total_percent)}, PresentBench ${percent(row.presentbench_total_percent)}${row.not_judged_count > 0 ? ` (${row.not_judged_count} items not judged)` : ''}${row.error_count > 0 ? ` (${row.error_count} unparseable)` : ''}`}`,
        );
      }
      for (const [category, means] of Object.entries(summary.categories)) {
        context.print(
          `${category}: paper ${percent(means.paper_mean_percent)}, PresentBench ${percent(means.presentbench_mean_percent)} (${means.count} instances)`,
        );
      }
      context.print(`wrote ${summaryFile}`);
    });
}

function registerScore(rubric: Command, context: CliContext): void {
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
      'judge_weights.yaml (required with --presentbench-result; default equal class weights)',
    )
    .option(
      '--instance <path>',
      'with --evaluation: take the class weights from its instance file or PresentBench case folder',
    )
    .option(
      '--counting <rule>',
      'all-items (scoring.py today, default) | yes-no-only (scoring.py at 65068ca)',
    )
    .option('--errors <policy>', 'report (default) | as-no: unparseable items in the paper score')
    .option(
      '--export-presentbench <file>',
      'with --evaluation: also write its verdicts as a PresentBench result YAML',
    )
    .option('--json', 'print both scores as JSON')
    .action(async (flags: ScoreFlags) => {
      if (Boolean(flags.presentbenchResult) === Boolean(flags.evaluation)) {
        throw new UsageError('give exactly one of --presentbench-result or --evaluation');
      }
      if (flags.presentbenchResult && !flags.weights)
        throw new UsageError('--presentbench-result needs --weights judge_weights.yaml');
      if (flags.exportPresentbench && !flags.evaluation)
        throw new UsageError('--export-presentbench needs --evaluation');
      if (flags.instance && (flags.weights || !flags.evaluation))
        throw new UsageError('--instance goes with --evaluation and instead of --weights');
      let weights = EQUAL_CLASS_WEIGHTS;
      if (flags.weights) {
        weights = await readPresentBenchWeights(
          requireExistingPath('--weights', resolve(context.io.cwd, flags.weights)),
        );
      } else if (flags.instance) {
        weights = (
          await loadInstanceAt(requireExistingPath('--instance', resolve(context.io.cwd, flags.instance)))
        ).weights;
      }
      const options = {
        weights,
        errorPolicy: choice<ErrorPolicy>(flags.errors, ERROR_POLICIES, '--errors', 'report'),
        countingRule: choice<PresentBenchCountingRule>(
          flags.counting,
          COUNTING_RULES,
          '--counting',
          'all-items',
        ),
      };
      let report: ScoreReport;
      if (flags.presentbenchResult) {
        const file = requireExistingPath(
          '--presentbench-result',
          resolve(context.io.cwd, flags.presentbenchResult),
        );
        report = scorePresentBenchVerdicts(await readPresentBenchResult(file), options);
      } else {
        const file = requireExistingPath('--evaluation', resolve(context.io.cwd, flags.evaluation as string));
        const evaluation = await readJson(file, rubricEvaluationSchema);
        report = scoreEvaluation(evaluation, options);
        if (flags.exportPresentbench) {
          const out = resolve(context.io.cwd, flags.exportPresentbench);
          await writeFileAtomic(
            out,
            stringifyPresentBenchResult(
              toPresentBenchResult(evaluation, { errorsAsNo: options.errorPolicy === 'as-no' }),
            ),
          );
          if (!flags.json) context.print(`wrote ${out}`);
        }
      }
      if (flags.json) {
        context.printJson(report);
        return;
      }
      printScores(context, report);
      for (const [section, classes] of Object.entries(report.presentbench.classes)) {
        for (const [id, info] of Object.entries(classes)) {
          context.print(
            `  ${section} class ${id}: ${info.score_percent === null ? 'n/a' : `${info.score_percent.toFixed(1)}%`} (${info.yes_count} / ${info.valid_count} yes)`,
          );
        }
      }
    });
}

function registerAlign(rubric: Command, context: CliContext): void {
  rubric
    .command('align')
    .description(
      'mean per-sample Spearman rho between evaluator scores and human rankings, with a bootstrap interval',
    )
    .requiredOption('--human <file>', 'rankings.csv: sample_id, system, rank (1 = best), optional annotator')
    .requiredOption(
      '--scores <name=file>',
      'evaluator scores (CSV sample_id, system, score or JSON array); repeatable, e.g. presentbench=a.csv',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--seed <n>', 'bootstrap seed (default 20260307)')
    .option('--resamples <n>', 'bootstrap resamples (default 2000)')
    .option('--json', 'print the alignment table as JSON')
    .action(async (flags: AlignFlags) => {
      const seed = flags.seed === undefined ? undefined : integerFlag('--seed', flags.seed, 0);
      const resamples = optionalPositiveInteger(flags.resamples, '--resamples');
      const bootstrap = { ...(seed !== undefined ? { seed } : {}), ...(resamples ? { resamples } : {}) };
      const rankings = await readHumanRankings(
        requireExistingPath('--human', resolve(context.io.cwd, flags.human)),
      );
      const rows = [];
      for (const entry of flags.scores) {
        const split = entry.indexOf('=');
        const name = split > 0 ? entry.slice(0, split) : basename(entry).replace(/\.[^.]+$/, '');
        const file = requireExistingPath(
          '--scores',
          resolve(context.io.cwd, split > 0 ? entry.slice(split + 1) : entry),
        );
        rows.push(alignWithHumans(name, rankings, await readSystemScores(file), bootstrap));
      }
      const human = humanAgreement(rankings, bootstrap);
      if (human) rows.push(human);
      if (flags.json) {
        context.printJson({ evaluators: rows });
        return;
      }
      for (const row of rows) {
        const interval = row.interval
          ? ` [${row.interval.low.toFixed(3)}, ${row.interval.high.toFixed(3)}] (${row.interval.confidence * 100}% bootstrap, seed ${row.interval.seed})`
          : '';
        context.print(
          `${row.evaluator.padEnd(16)} rho ${row.mean_rho === null ? 'n/a' : row.mean_rho.toFixed(3)}${interval}, ${row.samples_used} sample${row.samples_used === 1 ? '' : 's'}${row.samples_skipped.length ? `, ${row.samples_skipped.length} skipped (constant or < 2 systems)` : ''}`,
        );
      }
    });
}

function registerExportScores(rubric: Command, context: CliContext): void {
  rubric
    .command('export-scores')
    .description(
      'per-instance totals of `rubric run` summaries as sample_id,system,score CSV (input of `align`)',
    )
    .requiredOption(
      '--summary <system=file>',
      'a run summary (xsb_rubric_summary_<judge>.json) and the system it scored; repeatable',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--metric <name>', 'paper (default) | presentbench')
    .option('--out <file>', 'write the CSV here instead of printing it')
    .action(async (flags: { summary: string[]; metric?: string; out?: string }) => {
      const metric = choice(flags.metric, ['paper', 'presentbench'] as const, '--metric', 'paper');
      const summaries = [];
      for (const entry of flags.summary) {
        const split = entry.indexOf('=');
        if (split <= 0) throw new UsageError(`--summary must look like <system>=<file>, got "${entry}"`);
        const file = requireExistingPath('--summary', resolve(context.io.cwd, entry.slice(split + 1)));
        summaries.push({
          system: entry.slice(0, split),
          summary: await readJson(file, rubricRunSummarySchema),
        });
      }
      const csv = formatScoresCsv(scoresFromRunSummaries(summaries, metric));
      if (flags.out) {
        const out = resolve(context.io.cwd, flags.out);
        await writeFileAtomic(out, csv);
        context.print(`wrote ${out}`);
      } else context.io.stdout.write(csv);
    });
}

function registerCheck(rubric: Command, context: CliContext): void {
  rubric
    .command('check <deck>')
    .description('only the deterministic layout checks (no model); exit 1 when a check fails')
    .option('--slides <min-max>', 'required slide range, e.g. 21-35')
    .option('--language <code>', 'expected language (en, zh, ...; default: the deck’s majority script)')
    .option('--max-bullets <n>', 'most bullets a slide may carry (default 6)')
    .option('--min-font <pt>', 'smallest allowed font size in points (default 12)')
    .option(
      '--require-source',
      'every slide must name its source (section, chapter, figure, page, "Source:")',
    )
    .option('--json', 'print {deck, checks[]} as JSON')
    .action(async (deckArgument: string, flags: CheckFlags) => {
      let slideRange: { min: number; max: number } | undefined;
      if (flags.slides !== undefined) {
        const match = /^(\d+)-(\d+)$/.exec(flags.slides.trim());
        if (!match || Number(match[1]) < 1 || Number(match[1]) > Number(match[2])) {
          throw new UsageError(`--slides must look like 21-35, got "${flags.slides}"`);
        }
        slideRange = { min: Number(match[1]), max: Number(match[2]) };
      }
      const maxBullets = optionalPositiveInteger(flags.maxBullets, '--max-bullets');
      const minFont = positiveNumber(flags.minFont, '--min-font');
      const deckPath = requireExistingPath('deck', resolve(context.io.cwd, deckArgument));
      const deck = await readDeck(deckPath);
      const checks = runLayoutChecks(deck, {
        ...(slideRange ? { slideRange } : {}),
        ...(flags.language ? { language: flags.language } : {}),
        ...(maxBullets ? { maxBullets } : {}),
        ...(minFont ? { minFontSizePt: minFont } : {}),
        requireSourceAttribution: flags.requireSource ?? false,
      });
      if (checks.some((check) => check.passed === false)) reportExitCode(1);
      if (flags.json) {
        context.printJson({ deck: deckPath, slide_count: deck.slides.length, checks });
        return;
      }
      for (const check of checks) {
        const mark = check.passed === null ? 'n/a ' : check.passed ? 'pass' : 'FAIL';
        context.print(`${mark} ${check.id.padEnd(18)} ${check.detail}`);
        for (const finding of check.findings)
          context.print(`       slide ${finding.slide}: ${finding.detail}`);
      }
    });
}

interface HolisticFlags {
  judge?: string;
  instances?: string;
  results?: string;
  system?: string;
  out?: string;
  json?: boolean;
}

function registerHolistic(rubric: Command, context: CliContext): void {
  rubric
    .command('holistic [deck]')
    .description(
      'PPTEval-style baseline: one call rating content, design and coherence 1-5 (one deck or a results tree)',
    )
    .option('--judge <spec>', 'anthropic:<model>, openai:<model>, replay:<store> (needs a model)')
    .option('--instances <dir>', 'with --results: judge every instance’s deck instead of one deck')
    .option('--results <dir>', 'the generator’s results root')
    .option(
      '--system <name>',
      'with --results: the system name for the scores CSV (default: the results folder name)',
    )
    .option('--out <file>', 'with --results: write sample_id,system,score CSV (0-100) for `align`')
    .option('--json', 'print the scores as JSON')
    .action(async (deckArgument: string | undefined, flags: HolisticFlags) => {
      const batch = flags.instances !== undefined || flags.results !== undefined;
      if (batch === (deckArgument !== undefined))
        throw new UsageError('give a deck, or --instances and --results');
      if (batch && !(flags.instances && flags.results))
        throw new UsageError('--instances and --results go together');
      const { client, judgeId } = judgeFrom(context, flags.judge);
      if (!client)
        throw new UsageError('the holistic baseline has no offline judge; pass --judge <provider>:<model>');
      if (!batch) {
        const deckPath = requireExistingPath('deck', resolve(context.io.cwd, deckArgument as string));
        const score = await judgeHolistic(client, await readDeck(deckPath));
        if (flags.json) {
          context.printJson({ deck: deckPath, judge: judgeId, scores: score });
          return;
        }
        context.print(
          `content ${score.content.score}, design ${score.design.score}, coherence ${score.coherence.score}; overall ${score.overall.toFixed(2)} (${score.overall_percent.toFixed(1)} on 0-100)`,
        );
        return;
      }
      const resultsDir = requireExistingPath('--results', resolve(context.io.cwd, flags.results as string));
      const rows = await runHolistic({
        instancesDir: requireExistingPath('--instances', resolve(context.io.cwd, flags.instances as string)),
        resultsDir,
        client,
      });
      if (rows.some((row) => row.error !== null)) reportExitCode(1);
      const system = flags.system ?? basename(resultsDir);
      const scores = rows.flatMap((row) =>
        row.score ? [{ sample_id: row.instance_id, system, score: row.score.overall_percent }] : [],
      );
      if (flags.out) await writeFileAtomic(resolve(context.io.cwd, flags.out), formatScoresCsv(scores));
      if (flags.json) {
        context.printJson({ judge: judgeId, system, rows });
        return;
      }
      for (const row of rows) {
        context.print(
          `${row.instance_id}: ${row.score ? `${row.score.overall.toFixed(2)} (${row.score.overall_percent.toFixed(1)})` : `failed: ${row.error}`}`,
        );
      }
      if (flags.out) context.print(`wrote ${resolve(context.io.cwd, flags.out)}`);
    });
}

/** `xsb rubric …`: the PresentBench checklist evaluator. */
export const rubricCommand: CommandModule = {
  name: 'rubric',
  register(program, context) {
    const rubric = program
      .command('rubric')
      .description('PresentBench-compatible checklist evaluation of decks');
    registerEval(rubric, context);
    registerRun(rubric, context);
    registerScore(rubric, context);
    registerAlign(rubric, context);
    registerExportScores(rubric, context);
    registerCheck(rubric, context);
    registerHolistic(rubric, context);
  },
};

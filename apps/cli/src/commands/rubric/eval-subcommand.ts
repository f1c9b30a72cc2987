import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UsageError } from '@xsb/core';
import { readDeck } from '@xsb/decks';
import {
  cachedInputShare,
  evaluateOrReuse,
  evaluationFilesFor,
  loadInstanceAt,
  readMaterials,
  scoreEvaluation,
} from '@xsb/rubric';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import { addBatchFlags, type BatchFlags, requireExistingPath } from '../../cli-options';
import { reportExitCode } from '../../exit-code';
import { printRetest, REPEATS_FLAG_HELP, repeatsFlag } from '../meta/retest-output';
import { rubricRetestOf } from '../meta/rubric-retest';
import {
  addJudgingFlags,
  batchedJudgeFrom,
  batchJudging,
  type JudgingFlags,
  judgingOptions,
  printScores,
} from './rubric-flags';

interface EvalFlags extends JudgingFlags, BatchFlags {
  instance: string;
  deck: string;
  dataRoot?: string;
  repeats?: string;
}

const OUTCOME_LINE = {
  reused: (file: string) => `reused ${file} (inputs unchanged; --force judges again)`,
  resumed: (file: string) => `resumed ${file}: judged its unanswered items again`,
  evaluated: (file: string) => `wrote ${file}`,
} as const;

export function registerEval(rubric: Command, context: CliContext): void {
  const command = rubric
    .command('eval')
    .description(
      'judge one deck against one instance, item by item (writes <deck>.xsb_rubric_<judge>.json beside the deck)',
    )
    .requiredOption('--instance <path>', 'instance.yaml|json, or a PresentBench case folder')
    .requiredOption('--deck <file>', 'the generated deck (.pptx or .pdf)')
    .option('--data-root <dir>', 'PresentBench data root (default: the folder above the case’s domain)');
  addBatchFlags(addJudgingFlags(command), 'a batches/ folder beside the deck')
    .option('--json', 'print evaluation file, scores and token use as JSON')
    .option('--repeats <n>', REPEATS_FLAG_HELP)
    .action(async (flags: EvalFlags) => {
      const { errorPolicy, judging } = judgingOptions(flags);
      const repeats = repeatsFlag(flags.repeats);
      const instancePath = requireExistingPath('--instance', resolve(context.io.cwd, flags.instance));
      const deckPath = requireExistingPath('--deck', resolve(context.io.cwd, flags.deck));
      const { judge, batchConcurrency } = batchedJudgeFrom(context, flags, dirname(deckPath));
      const instance = await loadInstanceAt(
        instancePath,
        flags.dataRoot ? resolve(context.io.cwd, flags.dataRoot) : undefined,
      );
      const deck = await readDeck(deckPath);
      if (flags.attachPdf && deck.format !== 'pdf') {
        throw new UsageError('--attach-pdf needs a PDF deck; convert the PPTX to PDF first');
      }
      const files = evaluationFilesFor(deckPath, judge.id);
      const evaluateOptions = {
        instance,
        deck,
        ...(flags.attachPdf ? { deckPdf: new Uint8Array(await readFile(deckPath)) } : {}),
        materials: await readMaterials(instance.materials),
        judge,
        ...judging,
        ...batchJudging(batchConcurrency, flags.concurrency),
        progress: context.progress(),
      };
      const { evaluation, outcome, presentbench } = await evaluateOrReuse(
        evaluateOptions,
        files,
        flags.force ?? false,
      );
      const retest =
        repeats > 1
          ? await rubricRetestOf(evaluateOptions, files.evaluation, repeats, flags.force ?? false)
          : null;
      if (retest && (retest.unanswered > 0 || retest.retest.failures.length > 0)) reportExitCode(1);
      const scores = scoreEvaluation(evaluation, { weights: instance.weights, errorPolicy });
      if (scores.paper.error_count > 0) reportExitCode(1);
      if (flags.json) {
        context.printJson({
          evaluation_file: files.evaluation,
          presentbench_result_file: presentbench.result,
          presentbench_score_file: presentbench.score,
          judge: judge.id,
          parser: evaluation.parser,
          reused: outcome === 'reused',
          outcome,
          truncated: evaluation.truncated,
          usage: { ...evaluation.usage, cached_input_share: cachedInputShare(evaluation.usage) },
          ...scores,
          ...(retest ? { retest: retest.retest, retest_file: retest.file } : {}),
        });
        return;
      }
      context.print(
        `${instance.id}: ${evaluation.items.length} items, judge ${judge.id}, ${evaluation.parser} parser${evaluation.truncated ? `, deck truncated to ${evaluation.judged_slide_count} slides` : ''}`,
      );
      printScores(context, scores);
      const share = cachedInputShare(evaluation.usage);
      if (share !== null)
        context.print(`input tokens served from the cached prefix: ${(share * 100).toFixed(1)}%`);
      context.print(OUTCOME_LINE[outcome](files.evaluation));
      context.print(
        `PresentBench result: ${presentbench.result}${presentbench.score ? `, score: ${presentbench.score}` : ' (no score file while items are unanswered or not judged)'}`,
      );
      if (retest) printRetest(context, retest.retest, retest.file);
    });
}

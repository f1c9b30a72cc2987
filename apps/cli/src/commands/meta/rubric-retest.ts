import { basename } from 'node:path';
import type { MetaRetest } from '@xsb/meta';
import { type EvaluateDeckOptions, evaluateRepeats, retestFileFor } from '@xsb/rubric';

/** `xsb rubric eval --repeats N`; @xsb/meta is loaded only here. */
export async function rubricRetestOf(
  options: EvaluateDeckOptions,
  evaluationFile: string,
  repeats: number,
  force: boolean,
): Promise<{ retest: MetaRetest; file: string; unanswered: number }> {
  const { rubricRetest } = await import('@xsb/meta');
  const results = await evaluateRepeats(options, evaluationFile, repeats, force);
  const file = retestFileFor(evaluationFile);
  const retest = await rubricRetest({
    evaluationFile,
    repeats: results,
    judge: options.judge.id,
    deterministic: options.judge.kind === 'offline',
    file,
    scope: { deck: basename(options.deck.deck_path), instance: options.instance.id },
  });
  const unanswered = results.reduce(
    (sum, result) => sum + (result.evaluation?.items.filter((item) => item.verdict === 'error').length ?? 0),
    0,
  );
  return { retest, file, unanswered };
}

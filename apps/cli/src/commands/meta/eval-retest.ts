import { join } from 'node:path';
import { RunLayout } from '@xsb/core';
import type { EvaluationRunResult } from '@xsb/eval';
import type { MetaRetest } from '@xsb/meta';
import { evaluationsRootFor } from '@xsb/metrics';

/** `xsb eval --repeats N`; @xsb/meta is loaded only here, so a plain `xsb eval` does not load it. */
export async function evaluationRetestOf(
  outcome: EvaluationRunResult,
  options: { dataDir: string; run: string; repeats: number },
): Promise<{ retest: MetaRetest; file: string }> {
  const { EVALUATION_RETEST_FILE, evaluationRetest } = await import('@xsb/meta');
  const file = join(evaluationsRootFor(new RunLayout(options.dataDir), options.run), EVALUATION_RETEST_FILE);
  const retest = await evaluationRetest({
    results: outcome.results,
    judge: outcome.judge,
    deterministic: outcome.judge === 'lexical',
    repeats: options.repeats,
    file,
    scope: { run: options.run, jobs: outcome.results.length },
  });
  return { retest, file };
}

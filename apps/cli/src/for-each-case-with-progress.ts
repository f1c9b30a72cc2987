import type { ProgressReporter } from '@xsb/core';

/** For stages that judge nothing (stage 1), where a case is the finest unit that takes time. */
export async function forEachCaseWithProgress<Case extends { caseId: string }>(
  progress: ProgressReporter,
  stage: string,
  cases: Case[],
  work: (sourceCase: Case) => Promise<void>,
): Promise<void> {
  progress.start(stage, cases.length, { unit: 'cases' });
  for (const sourceCase of cases) {
    await work(sourceCase);
    progress.tick(1, sourceCase.caseId);
  }
  progress.finish();
}

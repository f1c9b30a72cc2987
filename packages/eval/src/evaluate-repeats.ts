import { countingProgress, type ProgressReporter } from '@xsb/core';
import type { EvaluateJobContext, JobResult } from './evaluate-job';
import { evaluateJobRepeat } from './evaluate-job-repeat';

/**
 * Repeats 1 … N − 1 of every job that is done, one repeat after the other (so a repeat's calls all
 * come after the previous repeat's). A job's other audiences (same deck) donate rows of the same
 * repeat, as in the ordinary ask. Each result gets its `repeats`; a failed repeat is recorded there.
 */
export async function evaluateRepeats(
  results: JobResult[],
  context: EvaluateJobContext,
  repeats: number,
  progress: ProgressReporter,
  plannedPerJob: readonly number[],
): Promise<void> {
  const done = results
    .map((result, index) => ({ result, planned: plannedPerJob[index] ?? 0 }))
    .filter(({ result }) => result.outcome !== 'failed');
  const planned = done.reduce((sum, { planned: calls }) => sum + calls, 0);
  progress.start(`evaluate repeats 1–${repeats - 1}`, planned * (repeats - 1), { unit: 'judge calls' });
  for (let repeat = 1; repeat < repeats; repeat += 1) {
    for (const { result, planned: calls } of done) {
      const donors = done
        .filter(({ result: other }) => other.job.deckFile === result.job.deckFile)
        .map(({ result: other }) => other.evaluationDir);
      const jobProgress = countingProgress(progress);
      const outcome = await evaluateJobRepeat(
        result.job,
        { ...context, progress: jobProgress.reporter },
        repeat,
        donors,
      );
      result.repeats = [...(result.repeats ?? []), outcome];
      const { done: counted, grown } = jobProgress.counted;
      progress.skip?.(
        Math.max(0, calls + grown - counted),
        `repeat ${repeat} ${result.job.system}/${result.job.condition}/${result.job.audience}/${result.job.caseLabel}: ${outcome.outcome}`,
      );
    }
  }
  const failed = done.reduce(
    (sum, { result }) => sum + (result.repeats ?? []).filter((r) => r.outcome === 'failed').length,
    0,
  );
  progress.finish(`${done.length * (repeats - 1) - failed}/${done.length * (repeats - 1)} repeats done`);
}

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type JobResult, repeatFiles } from '@xsb/eval';
import { EVALUATION_FILES } from '@xsb/metrics';
import { readVerdictFile, type VerdictSet } from '../agreement/read-verdict-set';
import type { MetaRetest } from '../schemas/meta-retest';
import { writeRetest } from './retest-record';

export const EVALUATION_RETEST_FILE = 'retest.json';

export interface EvaluationRetestOptions {
  /** `runEvaluation(…, { repeats })`'s results. */
  results: ReadonlyArray<Pick<JobResult, 'job' | 'evaluationDir' | 'outcome' | 'repeats'>>;
  judge: string;
  deterministic: boolean;
  repeats: number;
  /** Where `retest.json` goes (e.g. `<run>/evaluations/retest.json`). */
  file: string;
  scope: MetaRetest['scope'];
}

/**
 * Test–retest of stage 5 (probe coverage and claim labels per repeat) into `retest.json`. An agnostic
 * deck counts once: its audiences share each repeat's answers, so counting per audience would count one
 * verdict several times.
 */
export async function evaluationRetest(options: EvaluationRetestOptions): Promise<MetaRetest> {
  const sets: VerdictSet[] = Array.from({ length: options.repeats }, (_, repeat) => ({
    source: `repeat ${repeat}`,
    judges: [],
    items: new Map(),
    files: [],
  }));
  const failures: MetaRetest['failures'] = [];
  const seen = new Set<string>();
  for (const result of options.results) {
    const { job } = result;
    const where = `${job.system}/${job.condition}/${job.audience}/${job.caseLabel}`;
    for (const repeat of result.repeats ?? [])
      if (repeat.outcome === 'failed')
        failures.push({ repeat: repeat.repeat, where, error: repeat.error ?? '' });
    const deck = `${job.system}/${job.condition}/${job.deckAudience}/${job.caseLabel}`;
    if (result.outcome === 'failed' || seen.has(deck)) continue;
    seen.add(deck);
    for (let repeat = 0; repeat < options.repeats; repeat += 1) {
      // A repeat that failed (or was not run in this call) leaves its items incomplete, never stale.
      const outcome = repeat === 0 ? 'done' : result.repeats?.find((r) => r.repeat === repeat)?.outcome;
      if (outcome === undefined || outcome === 'failed') continue;
      const names =
        repeat === 0
          ? { probeScores: EVALUATION_FILES.probeScores, correctness: EVALUATION_FILES.correctness }
          : repeatFiles(repeat);
      const set = sets[repeat]!;
      for (const [name, kind] of [
        [names.probeScores, 'probe_scores'],
        [names.correctness, 'correctness'],
      ] as const) {
        const file = join(result.evaluationDir, name);
        if (!existsSync(file)) continue;
        const { items, judges } = await readVerdictFile(file, kind, deck);
        for (const item of items) if (!set.items.has(item.key)) set.items.set(item.key, item);
        for (const id of judges) if (!set.judges.includes(id)) set.judges.push(id);
        set.files.push(file);
      }
    }
  }
  return writeRetest(options.file, {
    kind: 'eval',
    judge: options.judge,
    deterministic: options.deterministic,
    repeats: sets,
    scope: { ...options.scope, decks: seen.size },
    repeatFiles:
      'probe_scores.repeat-<r>.jsonl and correctness.repeat-<r>.json beside probe_scores.jsonl and correctness.json in each evaluation folder',
    failures,
  });
}

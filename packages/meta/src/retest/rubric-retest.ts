import type { RubricRepeatResult } from '@xsb/rubric';
import { readVerdictFile, type VerdictSet } from '../agreement/read-verdict-set';
import type { MetaRetest } from '../schemas/meta-retest';
import { writeRetest } from './retest-record';

export interface RubricRetestOptions {
  /** The ordinary evaluation (repeat 0), `<deck>.xsb_rubric_<judge>.json`. */
  evaluationFile: string;
  /** `evaluateRepeats` of @xsb/rubric: repeats 1 … N − 1. */
  repeats: readonly RubricRepeatResult[];
  judge: string;
  deterministic: boolean;
  /** Where the record goes (`retestFileFor(evaluationFile)`). */
  file: string;
  scope: MetaRetest['scope'];
}

/** Test–retest of one deck's rubric evaluation: flip rates per dimension of the items a judge decided. */
export async function rubricRetest(options: RubricRetestOptions): Promise<MetaRetest> {
  const sets: VerdictSet[] = [];
  const read = async (file: string | null, source: string): Promise<VerdictSet> => {
    const set: VerdictSet = { source, judges: [], items: new Map(), files: [] };
    if (file === null) return set;
    const { items, judges } = await readVerdictFile(file, 'rubric');
    for (const item of items) set.items.set(item.key, item);
    set.judges.push(...judges);
    set.files.push(file);
    return set;
  };
  sets.push(await read(options.evaluationFile, 'repeat 0'));
  for (const repeat of options.repeats)
    sets.push(await read(repeat.outcome === 'failed' ? null : repeat.file, `repeat ${repeat.repeat}`));
  return writeRetest(options.file, {
    kind: 'rubric',
    judge: options.judge,
    deterministic: options.deterministic,
    repeats: sets,
    scope: options.scope,
    repeatFiles: '<deck>.xsb_rubric_<judge>.repeat-<r>.json beside <deck>.xsb_rubric_<judge>.json',
    failures: options.repeats
      .filter((repeat) => repeat.outcome === 'failed')
      .map((repeat) => ({ repeat: repeat.repeat, where: repeat.file, error: repeat.error ?? '' })),
  });
}

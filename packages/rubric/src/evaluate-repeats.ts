import { existsSync } from 'node:fs';
import { isXsbError, readJson, writeJson } from '@xsb/core';
import { repeatClient } from '@xsb/llm';
import { type EvaluateDeckOptions, evaluateDeck } from './evaluate-deck';
import { evaluationInputHash } from './rubric-item-work-list';
import { type RubricEvaluation, rubricEvaluationSchema } from './schemas/rubric-evaluation';

const EVALUATION_SUFFIX = /\.json$/;

/** `<deck>.xsb_rubric_<judge>.repeat-<r>.json`: test–retest repeat r ≥ 1, beside the ordinary evaluation. */
export function repeatEvaluationFile(evaluationFile: string, repeat: number): string {
  if (!Number.isInteger(repeat) || repeat < 1)
    throw new RangeError(`a repeat's file exists from repeat 1 on, got ${repeat}`);
  return evaluationFile.replace(EVALUATION_SUFFIX, `.repeat-${repeat}.json`);
}

/** `<deck>.xsb_rubric_<judge>.retest.json`: the flip rates of the repeats. */
export function retestFileFor(evaluationFile: string): string {
  return evaluationFile.replace(EVALUATION_SUFFIX, '.retest.json');
}

export interface RubricRepeatResult {
  repeat: number;
  file: string;
  outcome: 'reused' | 'resumed' | 'evaluated' | 'failed';
  evaluation?: RubricEvaluation;
  error?: string;
}

/**
 * Test–retest: repeats 1 … N − 1 of one deck's evaluation, each item asked again of the judge as
 * repeat r (its own response-cache entry: `repeatClient` of @xsb/llm), each repeat in its own file.
 * The ordinary evaluation (repeat 0, `evaluateOrReuse`) and its PresentBench files are not touched;
 * no PresentBench files are written for repeats. A repeat file with the same input hash is reused
 * (or resumed when it holds unanswered items), as the ordinary one is.
 */
export async function evaluateRepeats(
  options: EvaluateDeckOptions,
  evaluationFile: string,
  repeats: number,
  force = false,
): Promise<RubricRepeatResult[]> {
  if (!Number.isInteger(repeats) || repeats < 1)
    throw new RangeError(`repeats must be a positive integer, got ${repeats}`);
  const hash = evaluationInputHash(options);
  const results: RubricRepeatResult[] = [];
  for (let repeat = 1; repeat < repeats; repeat += 1) {
    const file = repeatEvaluationFile(evaluationFile, repeat);
    try {
      const stored =
        !force && existsSync(file)
          ? await readJson(file, rubricEvaluationSchema).catch(() => undefined)
          : undefined;
      const previous = stored?.input_hash === hash ? stored : undefined;
      const unanswered = previous?.items.some((item) => item.verdict === 'error') ?? false;
      if (previous && (!unanswered || options.judge.kind === 'offline')) {
        results.push({ repeat, file, outcome: 'reused', evaluation: previous });
        continue;
      }
      const evaluation = await evaluateDeck({
        ...options,
        judge:
          options.judge.kind === 'offline'
            ? options.judge
            : { ...options.judge, client: repeatClient(options.judge.client, repeat) },
        ...(previous ? { resumeFrom: previous } : {}),
      });
      await writeJson(file, rubricEvaluationSchema, evaluation);
      results.push({ repeat, file, outcome: previous ? 'resumed' : 'evaluated', evaluation });
    } catch (error) {
      if (!isXsbError(error)) throw error;
      results.push({ repeat, file, outcome: 'failed', error: error.message });
    }
  }
  return results;
}

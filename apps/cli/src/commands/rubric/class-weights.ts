import { resolve } from 'node:path';
import { UsageError } from '@xsb/core';
import {
  loadInstanceAt,
  type RubricClassWeights,
  type RubricEvaluation,
  readPresentBenchWeights,
} from '@xsb/rubric';
import type { CliContext } from '../../cli-context';
import { requireExistingPath } from '../../cli-options';

/**
 * The class weights to score an evaluation with: `--weights`, else `--instance`'s, else the ones the
 * evaluation recorded. Never equal weights in silence: an older evaluation without weights needs a flag.
 */
export async function evaluationWeights(
  context: CliContext,
  evaluation: RubricEvaluation,
  flags: { weights?: string; instance?: string },
): Promise<RubricClassWeights> {
  if (flags.weights && flags.instance) throw new UsageError('give --weights or --instance, not both');
  if (flags.weights) {
    return readPresentBenchWeights(requireExistingPath('--weights', resolve(context.io.cwd, flags.weights)));
  }
  if (flags.instance) {
    const path = requireExistingPath('--instance', resolve(context.io.cwd, flags.instance));
    return (await loadInstanceAt(path)).weights;
  }
  if (evaluation.weights) return evaluation.weights;
  throw new UsageError(
    'this evaluation does not record its class weights (written by an older xsb): pass --weights judge_weights.yaml or --instance <instance file | case folder>',
  );
}

import type { BenchEvaluationOverrides } from '../schemas/bench-config';

export interface FactorDefinition {
  name: string;
  description: string;
  off: BenchEvaluationOverrides;
  on: BenchEvaluationOverrides;
  builtIn: boolean;
}

/**
 * The evaluator's own binary factors, in declared order; `on` is the change from spec 000's
 * evaluation, except `claims`, where `on` is claim-level correctness and `off` scores none.
 */
export const BUILT_IN_FACTORS: readonly FactorDefinition[] = [
  {
    name: 'batch_size',
    description: 'answerability batches of 1 probe instead of 12',
    off: { batch_size: 12 },
    on: { batch_size: 1 },
    builtIn: true,
  },
  {
    name: 'judge_input',
    description: 'every deck judged from rendered slides instead of its visible text',
    off: { judge_input: 'text' },
    on: { judge_input: 'image' },
    builtIn: true,
  },
  {
    name: 'weight_k',
    description: 'one utility judgment per probe instead of 3',
    off: { weight_k: 3 },
    on: { weight_k: 1 },
    builtIn: true,
  },
  {
    name: 'claims',
    description: 'claim-level correctness (off: no correctness, so correctness and safe efficiency are null)',
    off: { claims: 'off' },
    on: { claims: 'on' },
    builtIn: true,
  },
];

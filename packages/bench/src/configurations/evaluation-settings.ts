import { canonicalJson, hashCanonicalJson } from '@xsb/core';
import { DEFAULT_BATCH_SIZE, DEFAULT_CLAIM_SETTINGS, DEFAULT_IMAGE_MODE_WORDS_PER_SLIDE } from '@xsb/eval';
import { DEFAULT_TAU_A } from '@xsb/metrics';
import { WEIGHT_DEFAULTS } from '@xsb/weights';
import type { BenchEvaluationOverrides } from '../schemas/bench-config';
import type { BenchEvaluationSettings } from '../schemas/bench-run';

/** The evaluation as `xsb eval` runs it, with the run's judge. */
export function baseEvaluationSettings(judge: string, tauA = DEFAULT_TAU_A): BenchEvaluationSettings {
  return {
    judge,
    batch_size: DEFAULT_BATCH_SIZE,
    judge_input: 'text',
    weight_k: WEIGHT_DEFAULTS.k,
    claims: 'on',
    tau_a: tauA,
    image_mode_words_per_slide: DEFAULT_IMAGE_MODE_WORDS_PER_SLIDE,
    claim_settings: { ...DEFAULT_CLAIM_SETTINGS },
  };
}

/** Base settings with the overrides applied (claim settings merged key by key). */
export function applyOverrides(
  base: BenchEvaluationSettings,
  overrides: BenchEvaluationOverrides,
): BenchEvaluationSettings {
  const { claim_settings: claimSettings, ...rest } = overrides;
  return {
    ...base,
    ...rest,
    claim_settings: { ...base.claim_settings, ...claimSettings },
  } as BenchEvaluationSettings;
}

/**
 * What decides an evaluation folder's content: every setting but tau_a (stage 6 recomputes metrics
 * at any tau_a without a judge call), and the judge only when it is not the run's own (the default
 * folder is judged by whatever judge the run uses, as `xsb eval` does).
 */
function folderKey(settings: BenchEvaluationSettings, runJudge: string): Record<string, unknown> {
  const { tau_a: _tau, judge, ...rest } = settings;
  return judge === runJudge ? rest : { ...rest, judge };
}

export function settingsDigest(settings: BenchEvaluationSettings, runJudge: string): string {
  return hashCanonicalJson(folderKey(settings, runJudge));
}

/**
 * The evaluations folder of a configuration: `runs/<run>/evaluations/` when its folder key equals
 * the defaults' (so `xsb eval` outputs are reused), else `evaluations@<first 12 hex of the digest>/`.
 * Configurations with equal keys share one folder, so nothing is evaluated twice.
 */
export function evaluationVariant(settings: BenchEvaluationSettings, runJudge: string): string | undefined {
  const base = baseEvaluationSettings(runJudge);
  if (canonicalJson(folderKey(settings, runJudge)) === canonicalJson(folderKey(base, runJudge)))
    return undefined;
  return settingsDigest(settings, runJudge).slice(0, 12);
}

export { computeAgreement, DEFAULT_AGREEMENT_SEED } from './agreement/compute-agreement';
export { readVerdictSet } from './agreement/read-verdict-set';
export { checkAnchors } from './anchors/check-anchors';
export { DEFAULT_ANCHOR_SIZE, freezeAnchors } from './anchors/freeze-anchors';
export { DEFAULT_EVALUATOR_FAMILIES, EVALUATOR_FAMILIES, type EvaluatorFamily } from './evaluator-ids';
export {
  checkSeverities,
  DEFAULT_PERTURBATION_SEED,
  DEFAULT_SEVERITIES,
  perturbDeck,
} from './perturb/perturb-deck';
export { perturbRun } from './perturb/perturb-run';
export { EVALUATION_RETEST_FILE, evaluationRetest } from './retest/evaluation-retest';
export { rubricRetest } from './retest/rubric-retest';
export { metaAgreementSchema } from './schemas/meta-agreement';
export {
  PERTURBATION_KINDS,
  type PerturbationRecord,
  perturbationRecordSchema,
} from './schemas/meta-perturbation';
export { type MetaRetest, type MetaRetestClass, metaRetestSchema } from './schemas/meta-retest';
export { metaScoreRowSchema, metaSensitivitySchema } from './schemas/meta-sensitivity';
export { DEFAULT_META_SEED, runSensitivity } from './sensitivity/run-sensitivity';

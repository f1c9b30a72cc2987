// The anchor layout and the reading of checks live in @xsb/bench (so `xsb bench compare` reads them
// without importing this package); re-exported here with the commands that write them.
export {
  type AnchorCheckVerdict,
  type AnchorStanding,
  anchorCheckFile,
  anchorCheckPasses,
  anchorDir,
  anchorRunName,
  anchorSetFile,
  anchorStandings,
  anchorsRoot,
  DEFAULT_MIN_KAPPA,
  listAnchorSets,
} from '@xsb/bench';
export { normalQuantile } from '@xsb/core';
export {
  type AgreementOptions,
  computeAgreement,
  DEFAULT_AGREEMENT_SEED,
} from './agreement/compute-agreement';
export { type FlipRateRow, type FlipRates, flipRates } from './agreement/flip-rate';
export {
  claimKey,
  readVerdictFile,
  readVerdictSet,
  type VerdictFileKind,
  type VerdictItem,
  type VerdictSet,
} from './agreement/read-verdict-set';
export { type CheckAnchorsOptions, checkAnchors } from './anchors/check-anchors';
export { DEFAULT_ANCHOR_SIZE, type FreezeAnchorsOptions, freezeAnchors } from './anchors/freeze-anchors';
export {
  EVALUATOR_IDS,
  type EvaluatorFamily,
  evaluatorFamily,
  expectedEffects,
  HOLISTIC_EVALUATORS,
  LAYOUT_EVALUATORS,
  LENGTH_CONTROL_KINDS,
  RUBRIC_EVALUATORS,
  XSLIDES_EVALUATORS,
} from './evaluator-ids';
export {
  checkSeverities,
  DEFAULT_PERTURBATION_SEED,
  DEFAULT_SEVERITIES,
  PERTURBATIONS_FILE,
  type PerturbDeckOptions,
  type PerturbDeckResult,
  perturbDeck,
} from './perturb/perturb-deck';
export { type PerturbRunOptions, perturbRun } from './perturb/perturb-run';
export {
  EVALUATION_RETEST_FILE,
  type EvaluationRetestOptions,
  evaluationRetest,
} from './retest/evaluation-retest';
export { type RetestInput, retestRecord, writeRetest } from './retest/retest-record';
export { type RubricRetestOptions, rubricRetest } from './retest/rubric-retest';
export { computeSensitivity, type SensitivityInput } from './sensitivity/compute-sensitivity';
export {
  buildDerivedRun,
  type DerivedDeck,
  type DerivedRun,
  derivedRunName,
} from './sensitivity/derived-run';
export { renderSensitivityReport } from './sensitivity/render-sensitivity-report';
export {
  DEFAULT_META_SEED,
  type RunSensitivityOptions,
  type RunSensitivityResult,
  runSensitivity,
} from './sensitivity/run-sensitivity';
export {
  layoutCheckScore,
  loadCaseInstances,
  type ModelClientSettings,
  scoreDerivedDecks,
} from './sensitivity/score-decks';
export { type Tolerance, toleranceFor, withinTolerance } from './sensitivity/tolerances';
export { bootstrapStatistic, pairedMeanChange, type StatisticInterval } from './stats/bootstrap-statistic';
export { cohenKappa, type PairAgreement } from './stats/cohen-kappa';
export { kendallTauB } from './stats/kendall-tau';
export { krippendorffAlphaNominal } from './stats/krippendorff-alpha';
export { type ShareInterval, wilsonInterval } from './stats/share-interval';

export {
  BUILT_IN_AUDIENCES,
  loadAudienceProfiles,
  NEUTRAL_LEXICAL_PREFERENCES,
} from './audience-profiles';
export { createUtilityJudge } from './create-utility-judge';
export {
  type AudienceWeightsOptions,
  type AudienceWeightsResult,
  ensureAudienceWeights,
  findWeightsBankMismatch,
  weightsFileForK,
} from './ensure-audience-weights';
export { LexicalUtilityJudge, lexicalUtility } from './lexical-utility-judge';
export { HIGH_VARIANCE_STD, meanAndStd, snapUtility } from './snap-utility';
export type { JudgeBatchInput, JudgeBatchOutput, UtilityJudge, UtilityJudgment } from './utility-judge';
export {
  buildUtilityCorrection,
  buildUtilityJudgmentRequest,
  type ParsedUtilityAnswer,
  parseUtilityAnswer,
} from './utility-judgment-prompt';
export { type WeighRunOptions, type WeightedCases, type WeightsRow, weighRun } from './weigh-run';
export {
  type PairWeightsInput,
  WEIGHT_DEFAULTS,
  WEIGHTS_STAGE,
  type WeightsSettings,
  type WeightsUnit,
  weightFailuresFile,
  weightsWorkList,
} from './weights-work-list';

export { BUILT_IN_AUDIENCES, loadAudienceProfiles } from './audience-profiles';
export { createUtilityJudge } from './create-utility-judge';
export { ensureAudienceWeights, findWeightsBankMismatch, weightsFileForK } from './ensure-audience-weights';
export { LexicalUtilityJudge, lexicalUtility } from './lexical-utility-judge';
export type { UtilityJudge } from './utility-judge';
export { buildUtilityJudgmentRequest, parseUtilityAnswer } from './utility-judgment-prompt';
export { type WeightsRow, weighRun } from './weigh-run';
export { WEIGHT_DEFAULTS, WEIGHTS_STAGE, type WeightsUnit, weightsWorkList } from './weights-work-list';

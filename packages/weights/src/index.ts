export { BUILT_IN_AUDIENCES, loadAudienceProfiles } from './audience-profiles';
export { createUtilityJudge } from './create-utility-judge';
export { ensureAudienceWeights, findWeightsBankMismatch, weightsFileForK } from './ensure-audience-weights';
export { lexicalUtility } from './lexical-utility-judge';
export {
  type AudienceProfile,
  audienceProfilesFileSchema,
  type LexicalPreferences,
} from './schemas/audience-profile';
export { weightFailureSchema } from './schemas/weight-failure';
export { type WeightsRow, weighRun } from './weigh-run';
export { WEIGHT_DEFAULTS, WEIGHTS_STAGE, weightsWorkList } from './weights-work-list';

export { LEXICAL_BANK_ASSUMPTION, lexicalBankCheck } from './bank-judge';
export { CostPlanBuilder, type PlanContext, type PlannedCall, sumRows } from './cost-plan-builder';
export { cappedOutput, OUTPUT_TOKEN_ESTIMATES } from './output-token-estimates';
export { OUTLINE_STAGE, type PlanDemoOptions, planDemo } from './plan-demo';
export { type PlanEvalOptions, planEval } from './plan-eval';
export { FILL_STAGE, type PlanFillResult, planFill } from './plan-fill';
export { type PlannedCaseSource, type PlanProbesOptions, PROBES_STAGE, planProbes } from './plan-probes';
export { type PlanRubricOptions, planRubric, planRubricDeck, RUBRIC_ITEM_STAGE } from './plan-rubric';
export { costPlanTable, planRowBasis, reconciliationTable, type TextTable } from './plan-tables';
export { type PlanWeightsOptions, planningClient, planWeights, WEIGHTS_STAGE } from './plan-weights';
export { MIN_CACHEABLE_TOKENS, type PromptCacheEffect, PromptCacheModel } from './prompt-cache-model';
export {
  INPUT_TOKEN_TOLERANCE,
  type ReconciledRow,
  reconcileUsage,
  type UsageFigures,
  type UsageReconciliation,
} from './reconcile-usage';
export { STAND_IN_ASSUMPTIONS, standInDeck, standInProbes } from './stand-ins';

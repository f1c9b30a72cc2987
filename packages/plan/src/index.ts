export { CostPlanBuilder, type PlanContext } from './cost-plan-builder';
export { type PlanDemoOptions, planDemo } from './plan-demo';
export { type PlanEvalOptions, planEval } from './plan-eval';
export { type PlanFillResult, planFill } from './plan-fill';
export { type PlanProbesOptions, planProbes } from './plan-probes';
export { type PlanRubricOptions, planRubric, planRubricDeck } from './plan-rubric';
export { costPlanTable, reconciliationTable } from './plan-tables';
export { type PlanWeightsOptions, planWeights } from './plan-weights';
export { reconcileUsage } from './reconcile-usage';

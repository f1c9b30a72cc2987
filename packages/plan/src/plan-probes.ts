import type { RunLayout } from '@xsb/core';
import { describeJudge, type JudgeDescription } from '@xsb/llm';
import { createProbeGenerator, PROBES_STAGE, probesWorkList } from '@xsb/probes';
import type { PrepareSourceContextOptions, SourceCase } from '@xsb/sources';
import type { CostPlanBuilder } from './cost-plan-builder';
import { planningJudge, priceUnit } from './plan-weights';

export interface PlanProbesOptions {
  layout: RunLayout;
  cases: readonly SourceCase[];
  k?: number;
  sourceChars?: number;
  chunkChars?: number;
  chunkOverlap?: number;
  force?: boolean;
  /** As `xsb probes` passes them to stage 1 (PDF parser, env, MinerU cache). */
  sourceOptions?: Omit<PrepareSourceContextOptions, 'maxChars' | 'force' | 'persist'>;
  /** The judge as described for the plan; default `describeJudge` of the plan's judge. */
  judge?: JudgeDescription;
}

/** What a case's bank will be made from: its source text and chunk count (for later stand-ins). */
export interface PlannedCaseSource {
  caseId: string;
  text: string;
  chunks: number;
  /** True when the plan makes the bank anew: later stages cannot use the bank on disk. */
  regenerated: boolean;
}

const MINERU_ASSUMPTION =
  'PDF text extracted with unpdf for the plan; the MinerU text the run will use may be longer or shorter';

/**
 * Stage 2's calls: the work list `xsb probes` runs (`probesWorkList`), priced, with the source
 * context stage 1 would give read without writing anything. A unit calls k generation requests per
 * chunk; a finished bank of the same settings is reused; the offline generator decides by its rule
 * and makes no call. A PDF whose context would be made by MinerU is extracted with unpdf for the plan
 * (no MinerU request), and the row says so. Exact: the first request of each generation (an answer
 * without a probe list gets one corrective follow-up, not planned).
 */
export async function planProbes(
  builder: CostPlanBuilder,
  options: PlanProbesOptions,
): Promise<PlannedCaseSource[]> {
  const judge = options.judge ?? describeJudge(builder.context.judge);
  const mineru = options.sourceOptions?.pdfParser === 'mineru';
  const units = await probesWorkList(
    options.layout,
    options.cases,
    createProbeGenerator(planningJudge(judge)),
    {
      ...options,
      sourceOptions: {
        ...options.sourceOptions,
        ...(mineru ? { pdfParser: 'unpdf' as const } : {}),
        persist: false,
      },
    },
  );
  const sources: PlannedCaseSource[] = [];
  if (judge.kind !== 'offline') builder.stage(PROBES_STAGE);
  for (const unit of units) {
    const input = unit.input;
    if ('error' in input) {
      const message = input.error instanceof Error ? input.error.message : String(input.error);
      builder.note(`probes ${unit.id}: ${message}; the case fails, no call`);
      continue;
    }
    const regenerated = judge.kind !== 'offline' && unit.decision.kind !== 'reuse';
    const { text } = input.prepared.extracted;
    sources.push({ caseId: unit.id, text, chunks: input.chunks.length, regenerated });
    const extractedForPlan = mineru && input.sourceCase.sourceType === 'pdf' && !input.prepared.skipped;
    const reused = input.chunks.length * input.k;
    await priceUnit(builder, unit, reused, extractedForPlan ? MINERU_ASSUMPTION : undefined);
  }
  return sources;
}

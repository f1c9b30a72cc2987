import { existsSync } from 'node:fs';
import { isXsbError, probeGenerationStatusSchema, type RunLayout, readJson } from '@xsb/core';
import { describeJudge, offlineJudge } from '@xsb/llm';
import type { CostPlanBuilder } from './cost-plan-builder';

/** The input assumption of a row that counts a probe bank the offline judge made, for a model judge's plan. */
export const LEXICAL_BANK_ASSUMPTION =
  'assumes the probe bank on disk; a model judge would build its own bank';

/**
 * For a model judge's plan: marks `stage` with {@link LEXICAL_BANK_ASSUMPTION} when the bank of a case
 * it counts was made by the offline judge (its `probe_generation_status.json` says so). The calls of
 * the command as typed still follow from that bank (the row stays `exact`), but a model run of the
 * pipeline builds a bank of its own, of another size. A bank whose status cannot be read says nothing.
 */
export function lexicalBankCheck(
  builder: CostPlanBuilder,
  layout: RunLayout,
): (stage: string, caseLabel: string) => Promise<void> {
  const planJudge = builder.context.judge;
  const bankJudges = new Map<string, string | null>();
  const bankJudge = async (caseLabel: string): Promise<string | null> => {
    if (!bankJudges.has(caseLabel)) {
      const file = layout.probeStatusFile(caseLabel);
      let judge: string | null = null;
      try {
        if (existsSync(file)) judge = (await readJson(file, probeGenerationStatusSchema)).judge;
      } catch (error) {
        if (!isXsbError(error)) throw error;
      }
      bankJudges.set(caseLabel, judge);
    }
    return bankJudges.get(caseLabel)!;
  };
  return async (stage, caseLabel) => {
    if (describeJudge(planJudge).kind === 'offline') return;
    // The bank records its judge's id (any string a library user chose): compared, not parsed.
    const judge = await bankJudge(caseLabel);
    if (judge === null || judge.trim() !== offlineJudge.id) return;
    builder.assumeInput(stage, LEXICAL_BANK_ASSUMPTION);
    builder.note(
      `probe banks on disk made by the ${judge} judge are counted as they are; probes made again by the ${planJudge} judge would differ, so the rows that count them are estimates for a pipeline run with ${planJudge}`,
    );
  };
}

import { RunLayout } from '@xsb/core';
import type { JudgeDescription } from '@xsb/llm';
import type { CostPlanBuilder } from '@xsb/plan';
import { type RankSelection, rankGroups } from './rank-groups';
import { PAIRWISE_STAGE, RANK_STAGE } from './rank-prompt';
import { type RankMode, rankWorkList } from './rank-work-list';
import { rankDir } from './run-rank';

export interface PlanRankOptions extends RankSelection {
  judge: JudgeDescription;
  mode?: RankMode;
  k?: number;
  seed?: number;
}

/**
 * `xsb plan rank`: the ranking judge's work list (`rankWorkList`, the one `runRank` executes) priced — a case
 * whose file records the same input hash is reused, the offline judge makes no call, every other ask is its one
 * request. Exact for the first attempt of each ask (a corrective retry after an unreadable answer is not planned).
 */
export async function planRank(
  builder: CostPlanBuilder,
  options: PlanRankOptions,
): Promise<{ failures: string[] }> {
  const mode = options.mode ?? 'listwise';
  const images = options.judge.kind !== 'offline' && options.judge.capabilities.readsImages;
  const settings = { mode, k: mode === 'listwise' ? (options.k ?? 3) : 1, seed: options.seed ?? 1, images };
  const failures: Array<{ where: string; error: string }> = [];
  const dir = rankDir(new RunLayout(options.dataDir), options.run, options.judge.id, mode);
  const groups = await rankGroups(options, dir, failures, images);
  builder.stage(mode === 'listwise' ? RANK_STAGE : PAIRWISE_STAGE);
  if (options.judge.kind === 'offline') builder.note('rank with the lexical judge: a rule, no calls');
  for (const unit of rankWorkList(groups, settings, options.judge)) {
    if (unit.decision.kind === 'reuse') builder.reuse(unit.stage, 1);
    if (unit.decision.kind !== 'call') continue;
    for (const request of unit.decision.requests)
      await builder.add({ stage: unit.stage, request, outputTokens: unit.decision.outputTokens });
  }
  for (const failure of failures)
    builder.note(`rank: ${failure.where}: ${failure.error} (left out, no call)`);
  return { failures: failures.map((failure) => `${failure.where}: ${failure.error}`) };
}

import type { JudgeDescriptor } from '@xsb/core';
import { compareCodePoints } from '@xsb/core/basics';

/** The judged steps behind a metric row, in pipeline order (the order judges are listed in). */
export const JUDGED_STAGES = ['probes', 'weights', 'answerability', 'correctness'] as const;

/** The offline judge's id (`lexical`): a documented algorithm, no model. */
export const OFFLINE_JUDGE_ID = 'lexical';

/**
 * What a recorded judge id (a judge spec: `lexical`, `anthropic:<model>`, `openai:<model>`,
 * `replay:<store>`, `record:<store>`) says about the judge. `modelLabels` maps a replay or record id
 * to the model label of its store, as the evaluation recorded it. An id of another form (a judge a
 * library caller built) is taken as a model judge named by its id.
 */
export function describeJudge(
  stage: string,
  id: string,
  modelLabels: Readonly<Record<string, string>> = {},
): JudgeDescriptor {
  if (id === OFFLINE_JUDGE_ID) return { stage, id, kind: 'offline' };
  const colon = id.indexOf(':');
  const prefix = colon === -1 ? '' : id.slice(0, colon);
  const rest = colon === -1 ? '' : id.slice(colon + 1);
  if ((prefix === 'anthropic' || prefix === 'openai') && rest !== '')
    return { stage, id, kind: 'model', model: rest };
  if ((prefix === 'replay' || prefix === 'record') && rest !== '') {
    const label = modelLabels[id];
    return { stage, id, kind: prefix, replay_store: rest, ...(label ? { model_label: label } : {}) };
  }
  return { stage, id, kind: 'model', model: id };
}

const stageRank = (stage: string) => {
  const index = (JUDGED_STAGES as readonly string[]).indexOf(stage);
  return index === -1 ? JUDGED_STAGES.length : index;
};

/**
 * Deduplicates judges by (stage, id) and sorts them in pipeline order, then by id, so the same
 * judges give the same bytes whatever order rows were read in. A model label known for one copy is kept.
 */
export function mergeJudges(lists: Iterable<readonly JudgeDescriptor[]>): JudgeDescriptor[] {
  const byKey = new Map<string, JudgeDescriptor>();
  for (const list of lists) {
    for (const judge of list) {
      const key = `${judge.stage}\u0000${judge.id}`;
      const kept = byKey.get(key);
      if (!kept || (!kept.model_label && judge.model_label)) byKey.set(key, judge);
    }
  }
  return [...byKey.values()].sort(
    (a, b) =>
      stageRank(a.stage) - stageRank(b.stage) ||
      compareCodePoints(a.stage, b.stage) ||
      compareCodePoints(a.id, b.id),
  );
}

/** True when an offline judge stands behind any of these. */
export const hasOfflineJudge = (judges: readonly JudgeDescriptor[]): boolean =>
  judges.some((judge) => judge.kind === 'offline');

/** The one line every output carries when an offline judge stands behind its numbers. */
export const OFFLINE_JUDGE_WARNING =
  'Offline judges (lexical) are a smoke test of the pipeline: their numbers do not rank real systems; use a model judge for that.';

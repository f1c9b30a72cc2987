import { type Deck, deriveSeed, hashCanonicalJson, type WorkUnit } from '@xsb/core';
import type { CompletionRequest, JudgeDescription } from '@xsb/llm';
import { seededShuffle } from '../create/sample-cases';
import { buildPairRequest, buildRankRequest, PAIRWISE_STAGE, RANK_STAGE } from './rank-prompt';

/** Listwise (PresentBench's ranking baseline) or pairwise (each pair in both orders). */
export type RankMode = 'listwise' | 'pairwise';

/** One case and audience with the decks of two or more systems: what one rank file holds. */
export interface RankGroup {
  caseLabel: string;
  audience: string;
  scene: string;
  /** Sorted system ids, each with its deck. */
  systems: string[];
  decks: Map<string, { file: string; sha256: string; deck: Deck; images?: Uint8Array[] }>;
  /** The group's artifact, and the input hash it records (null: absent or unreadable). */
  file: string;
  existingHash: string | null;
}

/** What a unit asks: the systems in the order the judge sees them (deck 1 first). */
export interface RankUnitInput {
  group: RankGroup;
  shown: string[];
}

export type RankUnit = WorkUnit<CompletionRequest, RankUnitInput>;

export interface RankSettings {
  mode: RankMode;
  /** Shuffled orders per case in listwise mode. */
  k: number;
  seed: number;
  /** The judge sees slide images (a model that reads them), not the decks' text. */
  images: boolean;
}

/** Everything that decides a group's file: the decks' bytes, the mode, k, the seed and the judge. */
export function rankInputHash(
  group: Pick<RankGroup, 'systems' | 'decks'>,
  settings: RankSettings,
  judge: string,
): string {
  return hashCanonicalJson({
    decks: group.systems.map((system) => [system, group.decks.get(system)!.sha256]),
    ...settings,
    judge,
    version: 1,
  });
}

/** The orders a group is asked in: k rotations of a seeded shuffle (listwise) or every pair both ways (pairwise). */
export function rankOrders(group: RankGroup, settings: RankSettings): string[][] {
  if (settings.mode === 'listwise') {
    // Rotations of one seeded shuffle: distinct orders up to k = n, and every system in every position equally
    // often when k is a multiple of n (independent shuffles of two decks would often repeat one order).
    const base = seededShuffle(
      group.systems,
      deriveSeed(settings.seed, `${group.audience}|${group.caseLabel}`),
    );
    return Array.from({ length: settings.k }, (_, k) => {
      const shift = k % base.length;
      return [...base.slice(shift), ...base.slice(0, shift)];
    });
  }
  return group.systems.flatMap((a, i) =>
    group.systems.slice(i + 1).flatMap((b) => [
      [a, b],
      [b, a],
    ]),
  );
}

/**
 * The ranking judge's work list: per group, one unit per order it is asked in, each with the request it sends
 * (the decks as numbered text, never a system name); `reuse` when the group's file records this input hash,
 * `rule` for the offline judge (lexical: key terms of the source found in each deck). Pure: reads and writes
 * nothing, so `xsb plan` can price it.
 */
export function rankWorkList(
  groups: readonly RankGroup[],
  settings: RankSettings,
  judge: Pick<JudgeDescription, 'id' | 'kind'>,
): RankUnit[] {
  const stage = settings.mode === 'listwise' ? RANK_STAGE : PAIRWISE_STAGE;
  return groups.flatMap((group) => {
    const reuseKey = rankInputHash(group, settings, judge.id);
    return rankOrders(group, settings).map((shown, n): RankUnit => {
      const decks = shown.map((system) => group.decks.get(system)!);
      const request =
        settings.mode === 'listwise'
          ? buildRankRequest(group, decks)
          : buildPairRequest(group, decks[0]!, decks[1]!);
      return {
        stage,
        id: `${group.audience}/${group.caseLabel}/${n + 1}`,
        reads: shown.map((system) => group.decks.get(system)!.file),
        reuseKey,
        decision:
          group.existingHash === reuseKey
            ? { kind: 'reuse', artifact: group.file }
            : judge.kind === 'offline'
              ? { kind: 'rule', rule: 'lexical: the share of the source key terms each deck holds' }
              : { kind: 'call', requests: [request], outputTokens: settings.mode === 'listwise' ? 30 : 10 },
        input: { group, shown },
      };
    });
  });
}

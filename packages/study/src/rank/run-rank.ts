import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type CallUsage,
  compareCodePoints,
  createSeededRandom,
  deriveSeed,
  executeWorkList,
  InputError,
  RunLayout,
  readJson,
  type StageEventListener,
  UsageError,
  writeJson,
} from '@xsb/core';
import { keyTerms } from '@xsb/design';
import { contentTokens } from '@xsb/eval';
import type { Judge, LlmClient } from '@xsb/llm';
import { judgeSlug } from '@xsb/rubric';
import { bradleyTerry, quantileSorted } from '@xsb/stats';
import {
  type RankPairwiseSummary,
  type RankRecord,
  rankPairwiseSummarySchema,
  rankRecordSchema,
} from '../schemas/rank-record';
import { type RankSelection, rankGroups } from './rank-groups';
import { correctiveRequest, parsePairAnswer, parseRankAnswer } from './rank-prompt';
import { type RankGroup, type RankMode, type RankUnit, rankInputHash, rankWorkList } from './rank-work-list';

export interface RunRankOptions extends RankSelection {
  judge: Judge;
  /** `listwise` (default): k shuffled orders, Borda; `pairwise`: each pair both ways, Bradley–Terry. */
  mode?: RankMode;
  /** Shuffled orders per case (listwise). Default 3. */
  k?: number;
  seed?: number;
  /** Bootstrap resamples of the pairwise strengths' intervals. Default 2000. */
  resamples?: number;
  concurrency?: number;
  onEvent?: StageEventListener;
}

export interface RankResult {
  dir: string;
  records: RankRecord[];
  failures: Array<{ where: string; error: string }>;
  summary: RankPairwiseSummary | null;
}

/** Where a judge's rank files go: `runs/<run>/rank/<judge>/<mode>/`. */
export function rankDir(layout: RunLayout, run: string, judgeId: string, mode: RankMode): string {
  return join(layout.runDir(run), 'rank', judgeSlug(judgeId), mode);
}

/** The offline judge's answer: decks by the share of the source's key terms they hold (stable on ties). */
async function lexicalAnswer(options: RunRankOptions, unit: RankUnit): Promise<string[]> {
  const { group, shown } = unit.input;
  const source = new RunLayout(options.dataDir).sourceContextFile(group.caseLabel);
  if (!existsSync(source))
    throw new InputError(`no extracted source text for case "${group.caseLabel}" (${source})`);
  const terms = keyTerms([await readFile(source, 'utf8')]);
  const share = (system: string) => {
    const tokens = new Set(
      contentTokens(
        group.decks
          .get(system)!
          .deck.slides.map((s) => s.visible_text)
          .join('\n'),
      ),
    );
    return terms.length === 0 ? 0 : terms.filter((term) => tokens.has(term)).length / terms.length;
  };
  return shown
    .map((system, position) => ({ system, position, score: share(system) }))
    .sort((a, b) => b.score - a.score || a.position - b.position)
    .map((entry) => entry.system);
}

/** A model's answer as systems best first (pairwise: the preferred one first), with one corrective retry. */
async function modelAnswer(
  client: LlmClient,
  unit: RankUnit,
  callMade: (usage: CallUsage) => void,
): Promise<string[]> {
  if (unit.decision.kind !== 'call') throw new Error(`rank unit ${unit.id} has no request to send`);
  const request = unit.decision.requests[0]!;
  const { shown } = unit.input;
  const read = (text: string) => {
    if (shown.length === 2 && unit.stage !== 'rank') {
      const better = parsePairAnswer(text);
      return better === null ? null : better === 1 ? [shown[0]!, shown[1]!] : [shown[1]!, shown[0]!];
    }
    return parseRankAnswer(text, shown.length)?.map((n) => shown[n - 1]!) ?? null;
  };
  const first = await client.complete(request);
  callMade(first.usage);
  const answer = read(first.text);
  if (answer) return answer;
  const retry = await client.complete(
    correctiveRequest(request, first.text, 'Reply with the JSON object only, in the format asked.'),
  );
  callMade(retry.usage);
  const second = read(retry.text);
  if (second) return second;
  // Never a silent gap: the case fails, named, and is asked again on the next run.
  throw new InputError(
    `the judge's answer did not read twice (last: ${JSON.stringify(retry.text.slice(0, 120))})`,
  );
}

/** Listwise: mean Borda points over the asks; pairwise: the share of its games each system won. */
function scoresOf(group: RankGroup, asks: RankRecord['asks'], mode: RankMode): Record<string, number | null> {
  return Object.fromEntries(
    group.systems.map((system) => {
      if (mode === 'listwise') {
        if (asks.length === 0) return [system, null];
        const points = asks.map((ask) => ask.answer.length - 1 - ask.answer.indexOf(system));
        return [system, points.reduce((a, b) => a + b, 0) / points.length];
      }
      const games = asks.filter((ask) => ask.shown.includes(system));
      return [
        system,
        games.length === 0 ? null : games.filter((ask) => ask.answer[0] === system).length / games.length,
      ];
    }),
  );
}

/** Share of pairs whose two orders got different winners. */
function swapDisagreement(asks: RankRecord['asks']): number | null {
  const winners = new Map<string, string[]>();
  for (const ask of asks) {
    const key = [...ask.shown].sort(compareCodePoints).join('\u0000');
    winners.set(key, [...(winners.get(key) ?? []), ask.answer[0]!]);
  }
  const both = [...winners.values()].filter((pair) => pair.length === 2);
  return both.length === 0 ? null : both.filter(([a, b]) => a !== b).length / both.length;
}

/** The swap disagreement over every case's pairs (each record's rate weighted by its pairs). */
function pooledSwapDisagreement(records: readonly RankRecord[]): number | null {
  const rated = records.filter((record) => record.swap_disagreement !== null);
  const pairs = rated.reduce((sum, record) => sum + record.asks.length / 2, 0);
  return pairs === 0
    ? null
    : rated.reduce((sum, record) => sum + record.swap_disagreement! * (record.asks.length / 2), 0) / pairs;
}

/** Bradley–Terry strengths over every case's preferences, with a percentile bootstrap over cases. */
function pairwiseSummary(records: readonly RankRecord[], options: RunRankOptions): RankPairwiseSummary {
  const systems = [...new Set(records.flatMap((record) => record.systems))].sort(compareCodePoints);
  const preferencesOf = (chosen: readonly RankRecord[]) =>
    chosen.flatMap((record) => record.asks.map((ask) => ({ winner: ask.answer[0]!, loser: ask.answer[1]! })));
  const fitted = bradleyTerry(systems, preferencesOf(records));
  const seed = options.seed ?? 1;
  const resamples = options.resamples ?? 2000;
  const cases = [...new Set(records.map((record) => record.case))];
  const random = createSeededRandom(deriveSeed(seed, 'rank|bootstrap'));
  const draws = new Map(systems.map((system) => [system, [] as number[]]));
  for (let r = 0; r < resamples && cases.length > 1; r += 1) {
    const picked = Array.from({ length: cases.length }, () => cases[Math.floor(random() * cases.length)]!);
    const chosen = picked.flatMap((c) => records.filter((record) => record.case === c));
    const refit = bradleyTerry(systems, preferencesOf(chosen));
    for (const system of systems) draws.get(system)!.push(refit.get(system)!);
  }
  const allAsks = records.flatMap((record) => record.asks);
  return {
    judge: options.judge.id,
    cases: cases.length,
    pairs: allAsks.length / 2,
    systems: systems.map((system) => {
      const sorted = draws.get(system)!.sort((a, b) => a - b);
      return {
        system,
        strength: fitted.get(system)!,
        ci_low: sorted.length === 0 ? null : quantileSorted(sorted, 0.025),
        ci_high: sorted.length === 0 ? null : quantileSorted(sorted, 0.975),
      };
    }),
    swap_disagreement: pooledSwapDisagreement(records),
    bootstrap: { seed, resamples, confidence: 0.95 },
  };
}

/**
 * `xsb rank`: the ranking judge (PresentBench's "MLLM-as-a-Judge Ranking" baseline) on every case and audience
 * with decks of two or more systems. Listwise, the judge ranks the decks in k seeded shuffled orders (position
 * bias averages out) and each deck gets its mean Borda points; pairwise, every pair is asked in both orders, each
 * deck gets its share of wins, and Bradley–Terry strengths per system are fitted over all cases with bootstrap
 * intervals, beside the position-swap disagreement rate. Through the stage contract: a file per case and
 * audience, reused while its input hash holds; every call through the judge's client (cache, replay, ledger).
 */
export async function runRank(options: RunRankOptions): Promise<RankResult> {
  const mode = options.mode ?? 'listwise';
  const k = options.k ?? 3;
  if (!Number.isInteger(k) || k < 1)
    throw new UsageError(`k must be a whole number of orders, 1 or more (got ${k})`);
  const images = options.judge.kind !== 'offline' && options.judge.capabilities.readsImages;
  const settings = { mode, k: mode === 'listwise' ? k : 1, seed: options.seed ?? 1, images };
  const layout = new RunLayout(options.dataDir);
  const dir = rankDir(layout, options.run, options.judge.id, mode);
  const failures: RankResult['failures'] = [];
  const groups = await rankGroups(options, dir, failures, images);
  if (groups.length === 0)
    throw new UsageError(
      `run "${options.run}" has no case and audience with decks of two or more selected systems`,
    );
  const units = rankWorkList(groups, settings, options.judge);
  const outcomes = await executeWorkList(units, {
    unitName: 'asks',
    concurrency: options.concurrency ?? 4,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    run: async (unit, context) => {
      if (unit.decision.kind === 'reuse') return null;
      if (unit.decision.kind === 'rule') return lexicalAnswer(options, unit);
      return modelAnswer(options.judge.client!, unit, (usage) => context.callMade(usage));
    },
  });
  const records: RankRecord[] = [];
  for (const group of groups) {
    const mine = outcomes.filter((outcome) => outcome.unit.input.group === group);
    const failed = mine.find((outcome) => outcome.status === 'failed');
    if (failed) {
      failures.push({
        where: group.file,
        error: failed.error instanceof Error ? failed.error.message : String(failed.error),
      });
      continue;
    }
    if (mine.every((outcome) => outcome.status === 'reused')) {
      records.push(await readJson(group.file, rankRecordSchema));
      continue;
    }
    // A group is reused whole or asked whole (one reuse key), so every ask of an asked group has its answer.
    const asks = mine.map((outcome) => ({ shown: outcome.unit.input.shown, answer: outcome.result! }));
    records.push(
      await writeJson(group.file, rankRecordSchema, {
        case: group.caseLabel,
        audience: group.audience,
        mode,
        judge: options.judge.id,
        k: settings.k,
        seed: settings.seed,
        input_hash: rankInputHash(group, settings, options.judge.id),
        systems: group.systems,
        asks,
        scores: scoresOf(group, asks, mode),
        swap_disagreement: mode === 'pairwise' ? swapDisagreement(asks) : null,
      }),
    );
  }
  const summary = mode === 'pairwise' && records.length > 0 ? pairwiseSummary(records, options) : null;
  if (summary) await writeJson(join(dir, 'summary.json'), rankPairwiseSummarySchema, summary);
  return { dir, records, failures, summary };
}

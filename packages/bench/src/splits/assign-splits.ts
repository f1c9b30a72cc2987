import { compareCodePoints, hashBytes } from '@xsb/core';
import type { BenchCaseKind, BenchSplitRow } from '../schemas/bench-split';

export const DEFAULT_TEST_SHARE = 0.3;

export interface SplitCandidate {
  case: string;
  kind: BenchCaseKind;
  stratum: string;
}

interface StratumPlan {
  stratum: string;
  quota: number;
  existingTest: number;
  newCases: SplitCandidate[];
  test: number;
}

/**
 * The deterministic balancer of `xsb bench split`. Existing rows never change. Over all cases (old
 * and new) the test target is round(share × N), allocated across strata by largest remainder of
 * share × N_s (ties by stratum name), so many tiny strata still add up to the share; each stratum's
 * count is then held inside what its existing rows allow (at least its existing test cases, at most
 * those plus its new ones) and the total is re-balanced toward the target stratum by stratum.
 * Within a stratum new cases are ordered by sha256 of their id and the first ones go to test: the
 * outcome depends only on the ids.
 */
export function assignSplits(
  existing: readonly BenchSplitRow[],
  candidates: readonly SplitCandidate[],
  options: { testShare?: number; now: Date },
): BenchSplitRow[] {
  const share = options.testShare ?? DEFAULT_TEST_SHARE;
  if (!(share >= 0 && share <= 1)) throw new RangeError(`test share must be in [0, 1], got ${share}`);
  const known = new Set(existing.map((row) => row.case));
  const fresh = candidates.filter((candidate) => !known.has(candidate.case));
  if (fresh.length === 0) return [];
  const strata = new Map<string, StratumPlan>();
  const plan = (stratum: string): StratumPlan => {
    let entry = strata.get(stratum);
    if (!entry) {
      entry = { stratum, quota: 0, existingTest: 0, newCases: [], test: 0 };
      strata.set(stratum, entry);
    }
    return entry;
  };
  for (const row of existing) {
    const entry = plan(row.stratum);
    entry.quota += 1;
    if (row.split === 'test') entry.existingTest += 1;
  }
  for (const candidate of fresh) {
    const entry = plan(candidate.stratum);
    entry.quota += 1;
    entry.newCases.push(candidate);
  }
  const ordered = [...strata.values()].sort((a, b) => compareCodePoints(a.stratum, b.stratum));
  // quota counted cases so far; the share of each stratum, rounded so equal remainders tie exactly.
  for (const s of ordered) s.quota = Math.round(share * s.quota * 1e9) / 1e9;
  const total = existing.length + fresh.length;
  const min = (s: StratumPlan) => s.existingTest;
  const max = (s: StratumPlan) => s.existingTest + s.newCases.length;
  const sum = () => ordered.reduce((acc, s) => acc + s.test, 0);
  const target = Math.min(
    Math.max(
      Math.round(share * total),
      ordered.reduce((acc, s) => acc + min(s), 0),
    ),
    ordered.reduce((acc, s) => acc + max(s), 0),
  );
  for (const s of ordered) s.test = Math.min(Math.max(Math.floor(s.quota), min(s)), max(s));
  // Largest remainder first; among equals the stratum name decides (the sort above is stable).
  while (sum() < target) {
    const open = ordered.filter((s) => s.test < max(s));
    open.sort((a, b) => b.quota - b.test - (a.quota - a.test));
    open[0]!.test += 1;
  }
  while (sum() > target) {
    const open = ordered.filter((s) => s.test > min(s));
    open.sort((a, b) => a.quota - a.test - (b.quota - b.test));
    open[0]!.test -= 1;
  }
  const assignedAt = options.now.toISOString();
  const rows: BenchSplitRow[] = [];
  for (const s of ordered) {
    const byHash = [...s.newCases].sort((a, b) => compareCodePoints(hashBytes(a.case), hashBytes(b.case)));
    const newTest = s.test - s.existingTest;
    byHash.forEach((candidate, index) => {
      rows.push({
        case: candidate.case,
        kind: candidate.kind,
        split: index < newTest ? 'test' : 'dev',
        stratum: candidate.stratum,
        assigned_at: assignedAt,
      });
    });
  }
  return rows.sort((a, b) => compareCodePoints(a.case, b.case));
}

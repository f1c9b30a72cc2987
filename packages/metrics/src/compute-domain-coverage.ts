import type { AudienceWeight, Probe, ProbeScore } from '@xsb/core';
import { classifyProbeDomain, PROBE_DOMAINS, type ProbeDomain } from './classify-probe-domain';
import { DEFAULT_TAU_A, joinIncludedProbes } from './compute-metrics';

export interface DomainCoverage {
  included_probe_count: number;
  available_utility: number;
  recovered_utility: number;
  /** null when no included probe falls in the domain. */
  coverage: number | null;
}

/**
 * Domain-wise coverage (spec 000 stage 7): the stage 6 join (`joinIncludedProbes`), split by the domain
 * of each included probe, so it is derived from the very score files audience coverage uses.
 */
export function computeDomainCoverage(input: {
  audience: string;
  probes: readonly Probe[];
  weights: readonly AudienceWeight[];
  scores: readonly ProbeScore[];
  tauA?: number;
}): Record<ProbeDomain, DomainCoverage> {
  const { included } = joinIncludedProbes({ ...input, tauA: input.tauA ?? DEFAULT_TAU_A });
  const result = Object.fromEntries(
    PROBE_DOMAINS.map((domain) => [
      domain,
      { included_probe_count: 0, available_utility: 0, recovered_utility: 0, coverage: null },
    ]),
  ) as Record<ProbeDomain, DomainCoverage>;
  for (const { probe, weight, score } of included) {
    const entry = result[classifyProbeDomain(probe)];
    entry.included_probe_count += 1;
    entry.available_utility += weight;
    if (score?.covered) entry.recovered_utility += weight;
  }
  for (const entry of Object.values(result)) {
    entry.coverage = entry.available_utility > 0 ? entry.recovered_utility / entry.available_utility : null;
  }
  return result;
}

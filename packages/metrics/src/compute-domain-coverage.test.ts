import { describe, expect, it } from 'vitest';
import { computeDomainCoverage } from './compute-domain-coverage';
import { computeMetrics } from './compute-metrics';
import { makeProbe, makeScore, makeWeight } from './testing';

describe('computeDomainCoverage', () => {
  const probes = [
    makeProbe('p1', { theme: 'limitations' }),
    makeProbe('p2', { theme: 'limitations' }),
    makeProbe('p3', { theme: 'results' }),
    makeProbe('p4', { theme: 'cost' }),
    makeProbe('p5', { theme: 'results' }),
  ];
  const weights = [
    makeWeight('p1', 'a', 1),
    makeWeight('p2', 'a', 0.8),
    makeWeight('p3', 'a', 0.9),
    makeWeight('p4', 'a', 0.3),
    makeWeight('p5', 'b', 1),
  ];
  const scores = [makeScore('p1', true), makeScore('p2', false), makeScore('p4', true)];

  it('splits the stage 6 join by domain: same included probes, same utilities', () => {
    const domains = computeDomainCoverage({ audience: 'a', probes, weights, scores });
    expect(domains.limitations).toEqual({
      included_probe_count: 2,
      available_utility: 1.8,
      recovered_utility: 1,
      coverage: 1 / 1.8,
    });
    // p3 is included but has no score: uncovered, as in stage 6
    expect(domains.evidence.coverage).toBe(0);
    // p4 is below tau_a and p5 has no weight for this audience: neither counts anywhere
    expect(domains.implementation.coverage).toBeNull();
    const overall = computeMetrics({
      audience: 'a',
      probes,
      weights,
      scores,
      slideCount: 1,
      visibleWordCount: 1,
    });
    const values = Object.values(domains);
    expect(values.reduce((sum, d) => sum + d.included_probe_count, 0)).toBe(overall.included_probe_count);
    expect(values.reduce((sum, d) => sum + d.available_utility, 0)).toBeCloseTo(
      overall.available_utility,
      12,
    );
    expect(values.reduce((sum, d) => sum + d.recovered_utility, 0)).toBeCloseTo(
      overall.recovered_utility,
      12,
    );
  });
});

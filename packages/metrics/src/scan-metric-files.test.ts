import type { Metrics } from '@xsb/core';
import { describe, expect, it } from 'vitest';
import {
  chooseMetricRows,
  compactRow,
  evaluationRow,
  isMetricCandidate,
  type MetricRow,
} from './scan-metric-files';

const metrics = (audience: string): Metrics => ({
  audience,
  tau_a: 0.7,
  included_probe_count: 3,
  available_utility: 1,
  recovered_utility: 0.5,
  coverage: 0.5,
  efficiency_time: null,
  efficiency_slide: null,
});

const row = (
  system_id: string,
  case_label: string,
  origin: MetricRow['origin'],
  file: string,
): MetricRow => ({
  system_id,
  system: null,
  condition: null,
  audience: 'expert',
  case_label,
  origin,
  file,
  evaluationDir: null,
  metrics: metrics('expert'),
});

describe('isMetricCandidate', () => {
  it('takes JSON files outside the correctness cache and the variant evaluations', () => {
    expect(isMetricCandidate('sys/expert/c1.json')).toBe(true);
    expect(isMetricCandidate('sys/expert/c1.txt')).toBe(false);
    expect(isMetricCandidate('c1/correctness_cache/x.json')).toBe(false);
    expect(isMetricCandidate('runs/r/evaluations@abc/s/c/a/k/metrics.json')).toBe(false);
  });
});

describe('evaluationRow', () => {
  const parts = ['s1', 'audience_conditioned', 'expert', 'case-1', 'metrics.json'];
  it('takes the identity from the fields, else from the path', () => {
    const fromPath = evaluationRow({ file: '/r/m.json', parts, parsed: {}, metrics: metrics('expert') });
    expect(fromPath).toMatchObject({
      system_id: 's1__audience_conditioned',
      system: 's1',
      condition: 'audience_conditioned',
      case_label: 'case-1',
      origin: 'evaluation',
      evaluationDir: '/r',
    });
    const fromFields = evaluationRow({
      file: '/r/m.json',
      parts,
      parsed: { system: 'named', case_label: 'c9', system_id: 'custom' },
      metrics: metrics('expert'),
    });
    expect(fromFields).toMatchObject({ system_id: 'custom', system: 'named', case_label: 'c9' });
  });
  it('gives a reason when the identity cannot be inferred', () => {
    expect(
      evaluationRow({
        file: '/r/metrics.json',
        parts: ['metrics.json'],
        parsed: {},
        metrics: metrics('expert'),
      }),
    ).toEqual({ reason: 'cannot infer system, condition and case from the fields or path' });
  });
});

describe('compactRow', () => {
  it('reads <system_id>/<audience>/<case>.json and checks the audience folder', () => {
    const ok = compactRow({
      file: '/r/s1__audience_agnostic/expert/c1.json',
      parts: ['s1__audience_agnostic', 'expert', 'c1.json'],
      parsed: {},
      metrics: metrics('expert'),
    });
    expect(ok).toMatchObject({
      system_id: 's1__audience_agnostic',
      system: 's1',
      case_label: 'c1',
      origin: 'compact',
    });
    const wrong = compactRow({
      file: '/r/s/novice/c1.json',
      parts: ['s', 'novice', 'c1.json'],
      parsed: {},
      metrics: metrics('expert'),
    });
    expect(wrong).toEqual({ reason: 'folder audience "novice" differs from "expert"' });
    expect(
      compactRow({ file: '/r/c1.json', parts: ['c1.json'], parsed: {}, metrics: metrics('expert') }),
    ).toHaveProperty('reason');
  });
});

describe('chooseMetricRows', () => {
  it('keeps one row per system, audience and case (an evaluation over its compact copy), sorted', () => {
    const { rows, duplicates } = chooseMetricRows([
      row('b', 'c1', 'compact', 'compact-b'),
      row('a', 'c2', 'compact', 'compact-a2'),
      row('b', 'c1', 'evaluation', 'evaluation-b'),
      row('a', 'c2', 'compact', 'compact-a2-again'),
    ]);
    expect(rows.map((r) => r.file)).toEqual(['compact-a2', 'evaluation-b']);
    expect(duplicates).toEqual([
      { file: 'compact-b', duplicate_of: 'evaluation-b' },
      { file: 'compact-a2-again', duplicate_of: 'compact-a2' },
    ]);
  });
});

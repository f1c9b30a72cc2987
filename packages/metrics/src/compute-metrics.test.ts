import { ValidationError } from '@xsb/core';
import { describe, expect, it } from 'vitest';
import { computeMetrics } from './compute-metrics';
import { makeProbe, makeScore, makeWeight } from './testing';

const probes = ['p1', 'p2', 'p3', 'p4'].map((id) => makeProbe(id));

/** One covered probe of weight 1 on a two-slide, twenty-word deck. */
const oneProbe = {
  audience: 'a',
  probes: [makeProbe('p1')],
  weights: [makeWeight('p1', 'a', 1)],
  scores: [makeScore('p1', true)],
  slideCount: 2,
  visibleWordCount: 20,
};

describe('computeMetrics', () => {
  it('follows the stage 6 formulas of spec 000', () => {
    const metrics = computeMetrics({
      audience: 'specialists',
      probes,
      weights: [
        makeWeight('p1', 'specialists', 1.0),
        makeWeight('p2', 'specialists', 0.7),
        makeWeight('p3', 'specialists', 0.6),
        makeWeight('p4', 'specialists', 1.0),
      ],
      scores: [makeScore('p1', true), makeScore('p2', false), makeScore('p3', true), makeScore('p4', true)],
      slideCount: 8,
      visibleWordCount: 260,
      correctness: 0.5,
    });
    expect(metrics.included_probe_count).toBe(3);
    expect(metrics.available_utility).toBeCloseTo(2.7, 12);
    expect(metrics.recovered_utility).toBeCloseTo(2.0, 12);
    expect(metrics.coverage).toBeCloseTo(2 / 2.7, 12);
    expect(metrics.efficiency_time).toBeCloseTo(2 / (0.25 * 8 + 260 / 130), 12);
    expect(metrics.efficiency_slide).toBeCloseTo(2 / 8, 12);
    expect(metrics.efficiency_word).toBeCloseTo(2 / 260, 12);
    expect(metrics.safe_efficiency_time).toBeCloseTo((2 / 4) * 0.5, 12);
  });

  it('records why correctness is null beside it, and only while it is null', () => {
    const input = { ...oneProbe, correctnessNullReason: 'no claim of the deck touches the source' };
    const unscored = computeMetrics({ ...input, correctness: null });
    expect(unscored.correctness).toBeNull();
    expect(unscored.safe_efficiency_time).toBeNull();
    expect(unscored.correctness_null_reason).toBe('no claim of the deck touches the source');
    expect(computeMetrics({ ...input, correctness: 0.5 })).not.toHaveProperty('correctness_null_reason');
  });

  it('counts a weight a hair below tau_a from floating-point averaging as reaching it', () => {
    const weight = (1.0 + 0.6 + 0.6 + 0.6) / 4;
    const metrics = computeMetrics({
      audience: 'a',
      probes: [makeProbe('p1')],
      weights: [makeWeight('p1', 'a', weight)],
      scores: [makeScore('p1', true)],
      slideCount: 1,
      visibleWordCount: 10,
    });
    expect(metrics.included_probe_count).toBe(1);
  });

  it('gives null coverage and efficiencies with a reason when no probe reaches tau_a', () => {
    const metrics = computeMetrics({
      audience: 'learners',
      probes,
      weights: probes.map((p) => makeWeight(p.probe_id, 'learners', 0.3)),
      scores: probes.map((p) => makeScore(p.probe_id, true)),
      slideCount: 5,
      visibleWordCount: 100,
      correctness: 1,
    });
    expect(metrics.coverage).toBeNull();
    expect(metrics.efficiency_time).toBeNull();
    expect(metrics.safe_efficiency_time).toBeNull();
    expect(metrics.coverage_null_reason).toMatch(/tau_a/);
  });

  it('counts an included probe without a score as uncovered and records the join problems', () => {
    const metrics = computeMetrics({
      audience: 'a',
      probes: probes.slice(0, 3),
      weights: [makeWeight('p1', 'a', 1), makeWeight('p2', 'a', 1), makeWeight('ghost', 'a', 1)],
      scores: [makeScore('p1', true), makeScore('p1', false), makeScore('zzz', true)],
      slideCount: 0,
      visibleWordCount: 0,
    });
    expect(metrics.coverage).toBe(0.5);
    expect(metrics.join.missing_score_probe_ids).toEqual(['p2']);
    expect(metrics.join.unweighted_probe_ids).toEqual(['p3']);
    expect(metrics.join.unknown_score_probe_ids).toEqual(['zzz']);
    expect(metrics.join.unknown_weight_probe_ids).toEqual(['ghost']);
    expect(metrics.join.duplicate_score_probe_ids).toEqual(['p1']);
    // an empty deck has zero time cost: efficiency_time is null, slide and word costs floor at 1
    expect(metrics.efficiency_time).toBeNull();
    expect(metrics.efficiency_slide).toBe(1);
    expect(metrics.efficiency_word).toBe(1);
  });

  it('ignores weight rows of other audiences and leaves safe efficiency null without correctness', () => {
    const metrics = computeMetrics({
      audience: 'a',
      probes: [makeProbe('p1')],
      weights: [makeWeight('p1', 'b', 1), makeWeight('p1', 'a', 0.6)],
      scores: [makeScore('p1', true)],
      slideCount: 4,
      visibleWordCount: 130,
      tauA: 0.6,
    });
    expect(metrics.available_utility).toBe(0.6);
    expect(metrics.correctness).toBeNull();
    expect(metrics.safe_efficiency_time).toBeNull();
  });

  it.each([
    ['a NaN weight', { weights: [makeWeight('p1', 'a', Number.NaN)] }, 'weights[0].utility_weight'],
    ['a weight of 5', { weights: [makeWeight('p1', 'a', 5)] }, 'weights[0].utility_weight'],
    ['a negative slide count', { slideCount: -4 }, 'slideCount'],
    ['a fractional word count', { visibleWordCount: 2.5 }, 'visibleWordCount'],
    ['a correctness above 1', { correctness: 1.2 }, 'correctness'],
    ['a NaN tau_a', { tauA: Number.NaN }, 'tauA'],
  ])(
    'refuses %s with a ValidationError naming the field, instead of a silent wrong metric',
    (_name, bad, field) => {
      expect(() => computeMetrics(oneProbe)).not.toThrow();
      let error: unknown;
      try {
        computeMetrics({ ...oneProbe, ...bad });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).field).toBe(field);
      expect((error as ValidationError).code).toBe('validation');
    },
  );
});

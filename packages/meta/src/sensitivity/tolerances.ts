import { evaluatorFamily } from '../evaluator-ids';

export interface Tolerance {
  /** |after − before| at most this stays "unchanged" … */
  absolute: number;
  /** … or at most this share of |before|, whichever is larger. */
  relative: number;
}

/**
 * How far an expected-unchanged score may move: relative for efficiencies (unbounded ratios), under one
 * item of a rubric dimension, nothing for deterministic layout checks, half a holistic point.
 */
export function toleranceFor(evaluator: string): Tolerance {
  if (evaluator === 'xslides.coverage' || evaluator === 'xslides.correctness')
    return { absolute: 0.02, relative: 0 };
  if (evaluator.startsWith('xslides.')) return { absolute: 0, relative: 0.02 };
  if (evaluator === 'rubric.total') return { absolute: 0.02, relative: 0 };
  if (evaluator.startsWith('rubric.')) return { absolute: 0.05, relative: 0 };
  if (evaluator.startsWith('layout.')) return { absolute: 1e-9, relative: 0 };
  // Deterministic, but a re-rendered page moves anti-aliased pixels: 2% of the value or 0.01.
  if (evaluator.startsWith('design.')) return { absolute: 0.01, relative: 0.02 };
  return { absolute: 0.5, relative: 0 };
}

export function withinTolerance(before: number, after: number, tolerance: Tolerance): boolean {
  return (
    Math.abs(after - before) <= Math.max(tolerance.absolute, tolerance.relative * Math.abs(before)) + 1e-12
  );
}

export function scaleOf(evaluator: string): string {
  switch (evaluatorFamily(evaluator)) {
    case 'xslides':
      return evaluator === 'xslides.coverage' || evaluator === 'xslides.correctness'
        ? '0-1'
        : 'recovered utility per cost unit (>= 0)';
    case 'rubric':
      return 'share of satisfied checklist items, 0-1 (total: mean of the five dimensions)';
    case 'layout':
      return evaluator === 'layout.slide_count'
        ? '1 within the range, 0 outside'
        : 'share of slides without a finding, 0-1';
    case 'holistic':
      return '1-5 (overall: mean of content, design, coherence)';
    case 'design':
      return designScale(evaluator.slice('design.'.length));
  }
}

function designScale(metric: string): string {
  if (metric === 'colorfulness') return 'Hasler-Süsstrunk colorfulness (0 grey; mean over slides)';
  if (metric.startsWith('contrast_below'))
    return 'text elements under the ratio per slide (mean over slides)';
  if (metric.startsWith('contrast')) return 'WCAG contrast ratio 1-21 (mean over slides with text)';
  if (metric === 'harmony') return 'degrees from the nearest hue template, 0-180 (0 harmonic)';
  if (metric === 'complexity') return 'subband entropy in bits (0 flat)';
  if (metric === 'whitespace') return 'share of background pixels, 0-1';
  return 'offset of the visual centre of mass, 0-1 (0 centred)';
}

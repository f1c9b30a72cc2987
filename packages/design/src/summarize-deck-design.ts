import {
  DESIGN_METRICS,
  type DeckDesign,
  type DesignMetric,
  type SlideDesign,
} from './schemas/design-record';

function meanAndSpread(values: readonly number[]): [number | null, number | null] {
  if (values.length === 0) return [null, null];
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length;
  return [mean, Math.sqrt(variance)];
}

/**
 * A deck's design: each metric's mean over its slides (contrast over the slides with measured text) and its
 * consistency, the population standard deviation across those slides (SlidesGen-Bench's "visual HRV" idea:
 * a deck whose slides look alike has a small spread).
 */
export function summarizeDeckDesign(slides: readonly SlideDesign[]): DeckDesign {
  const means = {} as Record<DesignMetric, number | null>;
  const consistency = {} as Record<DesignMetric, number | null>;
  for (const metric of DESIGN_METRICS) {
    const measured = slides.filter((slide) => !metric.startsWith('contrast') || slide.text_elements > 0);
    [means[metric], consistency[metric]] = meanAndSpread(measured.map((slide) => slide[metric] ?? 0));
  }
  return {
    slide_count: slides.length,
    ...means,
    consistency,
    low_contrast_slides: slides.filter((slide) => slide.contrast_below_3 > 0).map((slide) => slide.index),
  };
}

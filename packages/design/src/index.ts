export { cachedDeckDesign, deckDesignCacheFile } from './cached-deck-design';
export { designMetricReader, referenceMetricReader } from './design-metric-reader';
export {
  DESIGN_FILE,
  DESIGN_STAGE,
  type DesignJobInput,
  designWorkList,
  REFERENCE_FILE,
} from './design-work-list';
export { balance } from './image/balance';
export { colorfulness } from './image/colorfulness';
export { HARMONIC_TEMPLATES, type HarmonicTemplate, type HueHarmony, hueHarmony } from './image/hue-harmony';
export type { PixelBox, RgbImage } from './image/rgb-image';
export { subbandEntropy } from './image/subband-entropy';
export { contrastRatio, relativeLuminance, type TextContrast, textContrast } from './image/text-contrast';
export { whitespace } from './image/whitespace';
export { DESIGN_METRICS_VERSION, designInputHash, measureDeckDesign } from './measure-deck-design';
export { measureSlideDesign } from './measure-slide-design';
export {
  compareToReference,
  KEY_TERM_COUNT,
  keyTerms,
  type ReferenceComparison,
} from './reference/compare-to-reference';
export { rougeL } from './reference/rouge-l';
export { DEFAULT_RENDER_WIDTH_PX, type RenderSlidesOptions, storedSlidePages } from './render-slide-images';
export { type DesignRow, type RunDesignOptions, runDesign } from './run-design';
export {
  DESIGN_METRICS,
  type DeckDesign,
  type DesignMetric,
  type DesignRecord,
  deckDesignSchema,
  designRecordSchema,
  type SlideDesign,
  slideDesignSchema,
} from './schemas/design-record';
export { type ReferenceRecord, referenceRecordSchema } from './schemas/reference-record';
export { summarizeDeckDesign } from './summarize-deck-design';

import { z } from 'zod';

/** One slide's design metrics; `index` is 1-based. Contrast fields are null on a slide with no measured text. */
export const slideDesignSchema = z
  .object({
    index: z.number().int().min(1),
    colorfulness: z.number().min(0),
    contrast_min: z.number().min(1).max(21).nullable(),
    contrast_median: z.number().min(1).max(21).nullable(),
    contrast_below_4_5: z.number().int().min(0),
    contrast_below_3: z.number().int().min(0),
    /** Text elements measured (with a box on the slide and visible words). */
    text_elements: z.number().int().min(0),
    harmony: z.number().min(0).max(180),
    harmony_template: z.enum(['i', 'V', 'L', 'I', 'T', 'Y', 'X', 'N']),
    complexity: z.number().min(0),
    whitespace: z.number().min(0).max(1),
    balance: z.number().min(0).max(1),
  })
  .strict();
export type SlideDesign = z.infer<typeof slideDesignSchema>;

/** The metrics a deck averages and whose spread across slides is its consistency. */
export const DESIGN_METRICS = [
  'colorfulness',
  'contrast_min',
  'contrast_median',
  'contrast_below_4_5',
  'contrast_below_3',
  'harmony',
  'complexity',
  'whitespace',
  'balance',
] as const;
export type DesignMetric = (typeof DESIGN_METRICS)[number];

const metricValues = <T extends z.ZodType>(value: T) =>
  z
    .object(Object.fromEntries(DESIGN_METRICS.map((name) => [name, value])) as Record<DesignMetric, T>)
    .strict();

/** Per deck: the mean of each metric over its slides (contrast over slides with text) and their spread. */
export const deckDesignSchema = z
  .object({
    slide_count: z.number().int().min(0),
    ...metricValues(z.number().nullable()).shape,
    /** Population standard deviation of each metric across slides: 0 is perfectly consistent. */
    consistency: metricValues(z.number().min(0).nullable()),
    /** Slides (1-based) with text under 3:1, the ones a reader cannot read. */
    low_contrast_slides: z.array(z.number().int().min(1)),
  })
  .strict();
export type DeckDesign = z.infer<typeof deckDesignSchema>;

/** `design.json`: one deck's design metrics, and what they rest on. */
export const designRecordSchema = z
  .object({
    /** The deck measured: relative to the evaluation folder in a run (the data folder can move), as given for one deck. */
    deck_file: z.string(),
    deck_sha256: z.string(),
    /** Hash of everything that decides this file (deck bytes, render width, metric version): the reuse key. */
    input_hash: z.string(),
    render: z.object({ width_px: z.number().int().min(1), renderer: z.string() }).strict(),
    slides: z.array(slideDesignSchema),
    deck: deckDesignSchema,
  })
  .strict();
export type DesignRecord = z.infer<typeof designRecordSchema>;

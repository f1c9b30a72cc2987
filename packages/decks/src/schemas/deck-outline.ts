import { z } from 'zod';

/** A native table on a slide: header cells and body rows of the same width. */
export const outlineTableSchema = z.object({
  columns: z.array(z.string()).min(1).max(8),
  rows: z.array(z.array(z.string())).min(1).max(12),
});

/** A native chart on a slide, with numbers taken from the source. */
export const outlineChartSchema = z.object({
  type: z.enum(['bar', 'line', 'pie']),
  title: z.string().default(''),
  categories: z.array(z.string()).min(1).max(12),
  series: z
    .array(z.object({ name: z.string(), values: z.array(z.number()) }))
    .min(1)
    .max(4),
});

export const outlineSlideSchema = z.object({
  title: z.string().min(1),
  bullets: z.array(z.string()).max(8).default([]),
  table: outlineTableSchema.optional(),
  chart: outlineChartSchema.optional(),
  notes: z.string().optional(),
});

/**
 * `deck_outline.json`: what the built-in baseline generator planned (from a model or the lexical
 * extractive planner) before writing the PPTX; kept next to the deck so a deck can be rebuilt.
 */
export const deckOutlineSchema = z.object({
  title: z.string().min(1),
  subtitle: z.string().default(''),
  slides: z.array(outlineSlideSchema).min(1).max(40),
});
export type DeckOutline = z.infer<typeof deckOutlineSchema>;
export type OutlineSlide = z.infer<typeof outlineSlideSchema>;

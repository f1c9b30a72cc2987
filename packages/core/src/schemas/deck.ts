import { z } from 'zod';

/** A box in points (1/72 inch) from the slide's top-left corner, for PPTX and PDF alike. */
export const boundingBoxSchema = z.object({
  x: z.number(),
  y: z.number(),
  width: z.number(),
  height: z.number(),
});
export type BoundingBox = z.infer<typeof boundingBoxSchema>;

export const slideElementKindSchema = z.enum(['text', 'picture', 'table', 'chart', 'group', 'other']);
export type SlideElementKind = z.infer<typeof slideElementKindSchema>;

export interface SlideElement {
  kind: SlideElementKind;
  bbox: BoundingBox | null;
  text: string;
  /** Font sizes in points of the text runs, in reading order; empty when unknown. */
  font_sizes: number[];
  placeholder: boolean;
  /** Paragraphs rendered as bullets in this element (for bullet-count checks). */
  bullet_count?: number;
  children?: SlideElement[];
}

export const slideElementSchema: z.ZodType<SlideElement> = z.lazy(() =>
  z.object({
    kind: slideElementKindSchema,
    bbox: boundingBoxSchema.nullable(),
    text: z.string(),
    font_sizes: z.array(z.number()),
    placeholder: z.boolean(),
    bullet_count: z.number().int().min(0).optional(),
    children: z.array(slideElementSchema).optional(),
  }),
);

export const slideSchema = z.object({
  index: z.number().int().min(1),
  title: z.string(),
  visible_text: z.string(),
  notes: z.string(),
  elements: z.array(slideElementSchema),
});
export type Slide = z.infer<typeof slideSchema>;

/** `xsb decks inspect --json`; notes stay apart from visible text: spec 000's scoring never uses them. */
export const deckSchema = z.object({
  deck_path: z.string().min(1),
  format: z.enum(['pptx', 'pdf']),
  parser: z.string().min(1),
  slide_count: z.number().int().min(0),
  visible_word_count: z.number().int().min(0),
  slide_width: z.number().nullable(),
  slide_height: z.number().nullable(),
  slides: z.array(slideSchema),
  warnings: z.array(z.string()),
});
export type Deck = z.infer<typeof deckSchema>;

import { z } from 'zod';

/** Where one PDF page lies in `source_context.txt`: `text.slice(start, end)` is page `page` (1-based). */
export const sourcePageSpanSchema = z.object({
  page: z.number().int().positive(),
  start: z.number().int().min(0),
  end: z.number().int().min(0),
});
export type SourcePageSpan = z.infer<typeof sourcePageSpanSchema>;

/** A running header, footer or page number left in the text, marked so probe generation skips it. */
export const sourcePageFurnitureSchema = z.object({
  page: z.number().int().positive(),
  start: z.number().int().min(0),
  end: z.number().int().min(0),
  kind: z.enum(['running_header', 'running_footer', 'page_number']),
});
export type SourcePageFurniture = z.infer<typeof sourcePageFurnitureSchema>;

/** `source_context.json` beside `source_context.txt`: how the text was made, so a re-run can tell if it is current. */
export const sourceContextSchema = z.object({
  case_id: z.string().min(1),
  source_file: z.string().min(1),
  source_type: z.enum(['pdf', 'html', 'markdown', 'text', 'docx', 'odt', 'pptx']),
  source_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  parser: z.enum(['unpdf', 'mineru', 'html', 'markdown', 'text', 'docx', 'odt', 'pptx']),
  max_chars: z.number().int().positive(),
  original_chars: z.number().int().min(0),
  chars: z.number().int().min(0),
  truncated: z.boolean(),
  text_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  page_count: z.number().int().min(0),
  pages: z.array(sourcePageSpanSchema),
  /** Stage 1's extraction rules; a context from older rules (or none recorded) is re-extracted. */
  extractor_version: z.number().int().positive().optional(),
  /** Page furniture in the text (PDFs read with unpdf; empty for other sources and older records). */
  page_furniture: z.array(sourcePageFurnitureSchema).default([]),
  /** `xsb sources --pages` (canonical spelling); absent when all pages were kept. */
  page_range: z
    .string()
    .regex(/^\d+(-\d+)?(,\d+(-\d+)?)*$/)
    .optional(),
});
export type SourceContext = z.infer<typeof sourceContextSchema>;

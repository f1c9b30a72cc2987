import { z } from 'zod';

/**
 * A line of `STUDY/annotations/<annotator>.jsonl`: one annotator's ranking of one case's decks by their blinded
 * labels, best first, and the seconds spent on the case.
 */
export const annotationLineSchema = z.strictObject({
  case: z.string().min(1),
  ranking: z.array(z.string().min(1)).min(2),
  seconds: z.number().finite().min(0),
});
export type AnnotationLine = z.infer<typeof annotationLineSchema>;

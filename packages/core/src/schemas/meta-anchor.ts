import { z } from 'zod';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/** `anchor_set.json` (`xsb meta anchors freeze`; docs/artifact-formats.md); paths relative to its folder. */
export const metaAnchorSetSchema = z.looseObject({
  id: z.string().min(1),
  judge: z.string().min(1),
  run: z.string().min(1),
  seed: z.number().int(),
  frozen_at: z.string().min(1),
  decks: z.array(
    z.looseObject({
      system: z.string().min(1),
      condition: z.string().min(1),
      deck_audience: z.string().min(1),
      case_label: z.string().min(1),
      file: z.string().min(1),
      sha256,
      probes_sha256: sha256,
      source_sha256: sha256,
      /** Absent in sets frozen before rubric anchors. */
      rubric: z
        .looseObject({
          instance_id: z.string().min(1),
          /** sha256 of the instance's content and its materials' text: a changed checklist is refused. */
          instance_sha256: sha256,
          evaluation: z.string().min(1),
          parser: z.enum(['strict', 'lenient']),
          slide_count_on: z.enum(['judged', 'delivered']),
          /** Checklist items the judge decided (items a deterministic check decided are not anchors). */
          items: z.number().int().min(0),
        })
        .optional(),
    }),
  ),
  verdicts: z.array(
    z.looseObject({
      system: z.string().min(1),
      condition: z.string().min(1),
      audience: z.string().min(1),
      case_label: z.string().min(1),
      probe_scores: z.string().min(1),
      correctness: z.string().min(1).nullable(),
    }),
  ),
  item_count: z.number().int().min(0),
  /** Of item_count, the rubric items (0 or absent: the set anchors X+Slides verdicts only). */
  rubric_item_count: z.number().int().min(0).optional(),
});
export type MetaAnchorSet = z.infer<typeof metaAnchorSetSchema>;

/** `checks/<judge>.json` beside an anchor set (`xsb meta anchors check`), read by `xsb bench compare`. */
export const metaAnchorCheckSchema = z.looseObject({
  anchor_set: z.string().min(1),
  judge: z.string().min(1),
  frozen_judge: z.string().min(1),
  n: z.number().int().min(0),
  agreement: finite.nullable(),
  kappa: finite.nullable(),
  min_kappa: finite,
  passed: z.boolean(),
  /** Why it did not pass (or a note on what it rests on). */
  reason: z.string(),
  classes: z.array(
    z.looseObject({
      class: z.string().min(1),
      n: z.number().int().min(0),
      agreement: finite.nullable(),
      kappa: finite.nullable(),
    }),
  ),
  only_in_frozen: z.number().int().min(0),
  only_in_check: z.number().int().min(0),
  checked_at: z.string().min(1),
});
export type MetaAnchorCheck = z.infer<typeof metaAnchorCheckSchema>;

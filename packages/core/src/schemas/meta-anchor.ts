import { z } from 'zod';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * `anchor_set.json` (`xsb meta anchors freeze`): a small set of decks of one run, frozen with the
 * verdicts its judge gave them (probe coverage and claim labels, copied beside it) and the hashes of
 * the probe bank and source context they were judged against, so a later check re-scores exactly
 * the same questions. Paths are relative to the anchor folder.
 */
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
});
export type MetaAnchorSet = z.infer<typeof metaAnchorSetSchema>;

/**
 * `checks/<judge>.json` beside an anchor set (`xsb meta anchors check`): how well a judge re-scoring
 * the anchors agrees with the frozen verdicts, and whether that passes the threshold. `xsb bench
 * compare` reads these (`anchorCheckPasses` of @xsb/meta) before comparing runs of different judges.
 */
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

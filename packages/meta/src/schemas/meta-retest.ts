import { z } from 'zod';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const share = finite.nullable();

/** The flip rate of one item class over N repeats: items, items that flipped, the share with its Wilson interval. */
const metaRetestClassSchema = z.looseObject({
  class: z.string().min(1),
  /** Items every repeat judged. */
  n: z.number().int().min(0),
  /** Items whose verdict was not the same in every repeat. */
  flipped: z.number().int().min(0),
  /** flipped / n (null when n = 0), with its Wilson score interval. */
  flip_rate: share,
  ci_low: share,
  ci_high: share,
  /** Mean over repeat pairs of the share of items on which the pair agrees (null when n = 0). */
  mean_pairwise_agreement: share,
});
export type MetaRetestClass = z.infer<typeof metaRetestClassSchema>;

/**
 * `retest.json` (`--repeats N` of `xsb eval` and `xsb rubric eval`): the same judge asked N times, per item
 * class the share of items whose verdict was not the same every time; repeat 0 is the ordinary evaluation.
 */
export const metaRetestSchema = z.looseObject({
  kind: z.enum(['eval', 'rubric']),
  judge: z.string().min(1),
  /** The judge cannot vary between asks (`lexical`): a flip rate of 0 is by construction, not evidence. */
  deterministic: z.boolean(),
  repeats: z.number().int().min(1),
  /** What was re-asked: run, evaluations folder and job count (eval); deck and instance (rubric). */
  scope: z.record(z.string(), z.union([z.string(), z.number()])),
  /** The verdict files of repeat r ≥ 1, named relative to repeat 0's. */
  repeat_files: z.string().min(1),
  confidence: finite,
  classes: z.array(metaRetestClassSchema),
  overall: metaRetestClassSchema,
  /** Items missing from at least one repeat (a failed repeat, a claim only some repeats extracted): not in n. */
  incomplete: z.number().int().min(0),
  /** Repeats that failed (each listed); their items count as incomplete. */
  failures: z.array(z.looseObject({ repeat: z.number().int().min(1), where: z.string(), error: z.string() })),
  /** Every item that flipped, with its verdict in each repeat (repeat 0 first). */
  flips: z.array(
    z.looseObject({ item: z.string().min(1), class: z.string().min(1), values: z.array(z.string()) }),
  ),
  note: z.string().nullable(),
});
export type MetaRetest = z.infer<typeof metaRetestSchema>;

import { z } from 'zod';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const interval = z.looseObject({
  value: finite.nullable(),
  ci_low: finite.nullable(),
  ci_high: finite.nullable(),
});
const agreementStats = z.looseObject({
  class: z.string().min(1),
  n: z.number().int().min(0),
  labels: z.array(z.string()),
  agreement: interval,
  kappa: interval,
  alpha: interval,
});

/** `xsb meta agreement` output: agreement, kappa and alpha of two verdict sets per item class, and every disagreement. */
export const metaAgreementSchema = z.looseObject({
  a: z.string().min(1),
  b: z.string().min(1),
  judge_a: z.array(z.string()),
  judge_b: z.array(z.string()),
  matched_items: z.number().int().min(0),
  only_in_a: z.number().int().min(0),
  only_in_b: z.number().int().min(0),
  bootstrap: z.looseObject({
    seed: z.number().int(),
    resamples: z.number().int().min(1),
    confidence: finite,
  }),
  classes: z.array(agreementStats),
  overall: agreementStats,
  disagreements: z.array(
    z.looseObject({ item: z.string().min(1), class: z.string().min(1), a: z.string(), b: z.string() }),
  ),
});
export type MetaAgreement = z.infer<typeof metaAgreementSchema>;

/**
 * Typical answer sizes, in tokens, of each judged step: what a cost plan charges for output before
 * any answer exists. They are stated guesses from the answer each prompt asks for (JSON fields, one
 * short rationale), not measurements of a model; answers are capped at the request's `maxTokens`.
 * Output tokens are never reconciled to a bound (`xsb usage` shows them as they came).
 */
export const OUTPUT_TOKEN_ESTIMATES = {
  /** Per probe of an answerability batch: covered, a quoted answer, the slide, a confidence. */
  answerabilityPerProbe: 60,
  /** Per extracted claim: `{"slide", "claim"}`. */
  claimPerClaim: 30,
  /** Per verified claim: `{"claim_id", "label", "rationale": one sentence}`. */
  verificationPerClaim: 45,
  /** One checklist item: PresentBench's judges reason a paragraph, then `\boxed{yes|no}`. */
  rubricItem: 300,
  /** One deck outline: ~7 slides of 2–6 bullets. */
  outline: 1500,
} as const;

/** The estimate, never more than the answer budget. */
export function cappedOutput(tokens: number, maxTokens: number | undefined): number {
  return Math.round(maxTokens === undefined ? tokens : Math.min(tokens, maxTokens));
}

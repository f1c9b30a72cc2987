/** How much one contradicted claim weighs against the deck, relative to an unsupported one. */
export const CONTRADICTION_PENALTY = 2;

export const CORRECTNESS_FORMULA =
  'correctness = (supported + 1) / (supported + unsupported + 2 * contradicted + 1); null without claims or when no claim touches the source';

/**
 * The public correctness scalar in [0, 1]: a smoothed share of supported claims, with one
 * pseudo-supported claim as prior and contradictions counting double. All supported gives 1; a
 * single unsupported claim in a deck of ten lowers it to 10/11 (not to 0); a deck whose one claim is
 * contradicted gets 1/3. No claim at all gives null: there was nothing to check.
 */
export function aggregateCorrectness(counts: {
  supported: number;
  unsupported: number;
  contradicted: number;
}): number | null {
  const total = counts.supported + counts.unsupported + counts.contradicted;
  if (total === 0) return null;
  return (
    (counts.supported + 1) /
    (counts.supported + counts.unsupported + CONTRADICTION_PENALTY * counts.contradicted + 1)
  );
}

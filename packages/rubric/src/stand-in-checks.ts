import type { LayoutCheckId } from './layout-checks';

export interface StandIn {
  check: LayoutCheckId;
  /** The check answers the whole question, so it may replace the judge (`--layout-checks replace`). */
  coversItem: boolean;
}

/**
 * The paper's design and fundamentals items a deterministic check can decide from geometry, matched on
 * the item's bold title (spec 001, appendix A.3: 2.5, 2.6, 2.11, 2.12, 1.13). "Layout Reasonableness"
 * also asks about large empty areas, which the empty/title-only check does not see, so it only ever
 * runs beside the judge. A title that matches nothing keeps its item purely LLM-judged.
 */
const STAND_INS: Array<[RegExp, StandIn]> = [
  [/\*\*\s*Bullet Point Limitation\s*\*\*/i, { check: 'bullets_per_slide', coversItem: true }],
  [/\*\*\s*Font Size and Legibility\s*\*\*/i, { check: 'min_font_size', coversItem: true }],
  [/\*\*\s*Text and Content Overlap\s*\*\*/i, { check: 'text_overlap', coversItem: true }],
  [/\*\*\s*Language Consistency\s*\*\*/i, { check: 'language', coversItem: true }],
  [/\*\*\s*Layout Reasonableness\s*\*\*/i, { check: 'empty_slide', coversItem: false }],
];

/** The built-in check matching an LLM item, if any. */
export function standInCheckFor(item: string): StandIn | undefined {
  return STAND_INS.find(([pattern]) => pattern.test(item))?.[1];
}

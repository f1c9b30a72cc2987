import type { Correctness, VerifiedClaim } from '@xsb/core';
import { splitSentences, topicTerms } from './lexical-tokens';

/**
 * Lines about the deck or its making rather than about the source's content: thanks and
 * acknowledgements, funding, contact details and web addresses, "Questions?", copyright and image
 * credits, bibliography entries (English, German, French and Spanish cues). The source may hold the
 * same lines (a paper's acknowledgements), so a deck of them is "supported" without saying anything
 * the source is about.
 */
const OFF_CONTENT_LINE = new RegExp(
  [
    String.raw`\b(?:thanks?|thank you|acknowledg\w*|grateful|gratitude)\b`,
    String.raw`\b(?:danke\w*|danksagung\w*|vielen dank|bedanken)\b`,
    String.raw`\b(?:merci|remerciements?|remercions|gracias|agradec\w*)\b`,
    String.raw`\b(?:funded by|grant (?:no|number|agreement)|under grant|gefördert durch|financé par|financiado por)\b`,
    String.raw`\bsupported (?:in part )?by\b.*\b(?:foundation|fund|council|agency|ministry|grants?|programm?e?)\b`,
    String.raw`[\w.+-]+@[\w-]+\.[\w.]+|\b(?:https?://|www\.)\S+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|edu|gov|io|de|at|ch|fr|es|eu|uk)\/\S*`,
    String.raw`^\s*(?:any )?(?:questions|fragen|q\s*&\s*a)\s*\??\s*$`,
    String.raw`©|\bcopyright\b|\ball rights reserved\b|\b(?:image|photo|picture)s? (?:credits?|courtesy)\b|\bcredits?\s*:|\bBildnachweis\w*|\bCC[-\s]?BY\b|\blicen[cs]ed under\b`,
    String.raw`\bdoi\s*[:.]?\s*10\.\d|\barxiv\s*[:.]?\s*\d{4}\.\d|\bet al\.?,?\s*\(?(?:19|20)\d{2}|^\s*\[\d{1,4}\]\s|\bproceedings of\b`,
  ].join('|'),
  'iu',
);

/** Why a claim does not touch the source, or undefined when it does. */
export type SourceContactMiss = 'off_content' | 'no_shared_term';

/**
 * Whether the source sentence a claim matches best (of its top snippet, the one sharing most topic
 * terms with it) is an off-content line: a claim copied from the source's acknowledgements or
 * references says no more than the line it copies, even when it lost the cue word ("An dieser Stelle
 * möchte ich Herrn Prof." of "Danksagungen An dieser Stelle möchte ich Herrn Prof. Dr. … danken").
 */
function copiesOffContentLine(claim: Pick<VerifiedClaim, 'text' | 'snippets'>): boolean {
  const top = claim.snippets[0];
  if (!top) return false;
  const terms = new Set(topicTerms(claim.text));
  let best: { sentence: string; shared: number } | undefined;
  for (const sentence of splitSentences(top.text)) {
    const shared = new Set(topicTerms(sentence).filter((term) => terms.has(term))).size;
    if (shared > 0 && (!best || shared > best.shared)) best = { sentence, shared };
  }
  return best !== undefined && OFF_CONTENT_LINE.test(best.sentence);
}

/**
 * Whether a claim touches the source: it is not an off-content line (thanks, funding, contact,
 * credits, references; see OFF_CONTENT_LINE), and it shares at least one topic term (a content word
 * that is no function or question-template word in en/de/fr/es) with the source snippets retrieved
 * for it. A judge that reads meaning (`trustLabels`: a model, whose supported or contradicted verdict
 * says it found the claim's subject in the source, e.g. a translated claim) also counts a claim it did
 * not label unsupported; the lexical judge's labels come from term overlap alone, so they add nothing.
 */
export function sourceContactMiss(
  claim: Pick<VerifiedClaim, 'text' | 'label' | 'snippets'>,
  trustLabels: boolean,
): SourceContactMiss | undefined {
  if (OFF_CONTENT_LINE.test(claim.text) || copiesOffContentLine(claim)) return 'off_content';
  if (trustLabels && claim.label !== 'unsupported') return undefined;
  const snippetTerms = new Set(topicTerms(claim.snippets.map((snippet) => snippet.text).join('\n')));
  return topicTerms(claim.text).some((term) => snippetTerms.has(term)) ? undefined : 'no_shared_term';
}

/** "a", "a and b", "a, b and c". */
const listed = (parts: readonly string[]) =>
  parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;

/**
 * A line of the first slide that reads as a title, not a statement (no number, no closing
 * punctuation): a cover naming the deck's topic, often with the source's own title. It asserts
 * nothing, so it does not make a deck of thanks and credits one about the source.
 */
function isCoverLine(claim: Pick<VerifiedClaim, 'slide_index' | 'text'>): boolean {
  const text = claim.text.trim();
  return claim.slide_index === 1 && !/[.!?:;]$/.test(text) && !/\d/.test(text);
}

/**
 * The correctness record with the "touches the source" rule applied: a deck whose claims all miss
 * the source (off-topic text such as "Box 1", or acknowledgements only, under a cover that may name
 * the source's title: see isCoverLine) has nothing correctness could be about, so its correctness is null with the reason, not the smoothing prior's (1 + supported) /
 * (1 + claims). Counts and claims are kept as they are. Idempotent, so a cached record is passed
 * through it again on every read.
 */
export function applySourceContact(record: Correctness, trustLabels: boolean): Correctness {
  if (record.correctness === null || record.claims.length === 0) return record;
  const misses = record.claims.map((claim) =>
    isCoverLine(claim) ? 'cover_line' : sourceContactMiss(claim, trustLabels),
  );
  if (misses.some((miss) => miss === undefined)) return record;
  const offContent = misses.filter((miss) => miss === 'off_content').length;
  const covers = misses.filter((miss) => miss === 'cover_line').length;
  const noTerm = misses.length - offContent - covers;
  const parts = [
    ...(covers > 0 ? [`${covers} ${covers === 1 ? 'is a cover line' : 'are cover lines'}`] : []),
    ...(offContent > 0
      ? [
          `${offContent} ${offContent === 1 ? 'is a thanks, credit, contact or reference line' : 'are thanks, credit, contact or reference lines'}`,
        ]
      : []),
    ...(noTerm > 0 ? [`${noTerm} ${noTerm === 1 ? 'shares' : 'share'} no topic term with the source`] : []),
  ];
  const claims = record.claims.length === 1 ? '1 claim' : `${record.claims.length} claims`;
  return {
    ...record,
    correctness: null,
    null_reason: `no claim of the deck touches the source (of ${claims}, ${listed(parts)})`,
  };
}

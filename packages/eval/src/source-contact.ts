import type { Correctness, VerifiedClaim } from '@xsb/core';
import { topicTerms } from './lexical-tokens';

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
    String.raw`[\w.+-]+@[\w-]+\.[\w.]+|\b(?:https?://|www\.)\S+`,
    String.raw`^\s*(?:any )?(?:questions|fragen|q\s*&\s*a)\s*\??\s*$`,
    String.raw`©|\bcopyright\b|\ball rights reserved\b|\b(?:image|photo|picture)s? (?:credits?|courtesy)\b|\bcredits?\s*:|\bBildnachweis\w*|\bCC[-\s]?BY\b|\blicen[cs]ed under\b`,
    String.raw`\bdoi\s*[:.]?\s*10\.\d|\barxiv\s*[:.]?\s*\d{4}\.\d|\bet al\.?,?\s*\(?(?:19|20)\d{2}|^\s*\[\d{1,4}\]\s|\bproceedings of\b`,
  ].join('|'),
  'iu',
);

/** Why a claim does not touch the source, or undefined when it does. */
export type SourceContactMiss = 'off_content' | 'no_shared_term';

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
  if (OFF_CONTENT_LINE.test(claim.text)) return 'off_content';
  if (trustLabels && claim.label !== 'unsupported') return undefined;
  const snippetTerms = new Set(topicTerms(claim.snippets.map((snippet) => snippet.text).join('\n')));
  return topicTerms(claim.text).some((term) => snippetTerms.has(term)) ? undefined : 'no_shared_term';
}

/**
 * The correctness record with the "touches the source" rule applied: a deck whose claims all miss
 * the source (off-topic text such as "Box 1", or acknowledgements only) has nothing correctness could
 * be about, so its correctness is null with the reason, not the smoothing prior's (1 + supported) /
 * (1 + claims). Counts and claims are kept as they are. Idempotent, so a cached record is passed
 * through it again on every read.
 */
export function applySourceContact(record: Correctness, trustLabels: boolean): Correctness {
  if (record.correctness === null || record.claims.length === 0) return record;
  const misses = record.claims.map((claim) => sourceContactMiss(claim, trustLabels));
  if (misses.some((miss) => miss === undefined)) return record;
  const offContent = misses.filter((miss) => miss === 'off_content').length;
  const noTerm = misses.length - offContent;
  const parts = [
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
    null_reason: `no claim of the deck touches the source (of ${claims}, ${parts.join(' and ')})`,
  };
}

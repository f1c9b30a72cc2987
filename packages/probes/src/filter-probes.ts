/** The fields the filters read. */
export interface FilterInput {
  question: string;
  answer: string;
  evidence: ReadonlyArray<{ text: string }>;
}

export type FilterReason = 'citation_list' | 'reference_only';

// A question about the document's bibliography or what it cites.
const CITATION_QUESTION =
  /\b(references? (list|section)|references|list of references|bibliograph\w*|works cited|citations?|cited|cites|citing)\b/i;
// One bibliography entry: a numbered `[12]` head, or publication furniture (doi, arXiv, pp., vol.,
// "Proceedings of", "et al., 2019" / "et al. (2019)").
const BIBLIOGRAPHY_ENTRY =
  /^\s*\[\d{1,4}\]\s|\bdoi\s*[:.]?\s*10\.\d|\barxiv\s*[:.]?\s*\d{4}\.\d|\bpp\.\s*\d|\bvol\.\s*\d|\bproceedings of\b|\bet al\.?,?\s*\(?(19|20)\d{2}/i;

// A numbered pointer into the document: Figure 3, Fig. 2a, Table IV, Section 4.1, Eq. (5), [12], page 7.
const POINTER =
  /(\b(figures?|figs?\.?|tables?|sections?|secs?\.?|§|equations?|eqs?\.?|appendix|appendices|algorithms?|listings?|chapters?|pages?|pp?\.)\s*\(?(\d+[a-z]?|[ivxlc]+)(\.\d+)*\)?(?![a-z0-9])|\[\d{1,4}(\s*[,–-]\s*\d{1,4})*\])/gi;
// Words that carry no content of their own in a question or answer about a document element.
const FILLER =
  /\b(the|a|an|in|on|at|by|of|to|as|per|and|or|see|is|are|was|were|be|been|do|does|did|what|which|where|according|source|document|paper|article|report|shown|show|shows|depict\w*|illustrat\w*|present\w*|contain\w*|describ\w*|list|lists|listed|display\w*|summari[sz]\w*|reported|refers?|referred|given|provided)\b/gi;

/**
 * Citation-list probe: its question asks about references, citations or the bibliography, or at least
 * half of its evidence items are bibliography entries (numbered `[n]` heads, doi/arXiv ids, `pp.`/`vol.`,
 * "Proceedings of", "et al., YEAR"). Such probes test the reference list, which no deck should copy.
 */
export function isCitationListProbe(probe: FilterInput): boolean {
  if (CITATION_QUESTION.test(probe.question)) return true;
  const entries = probe.evidence.filter((item) => BIBLIOGRAPHY_ENTRY.test(item.text)).length;
  return probe.evidence.length > 0 && entries * 2 >= probe.evidence.length;
}

/**
 * Reference-only probe: the answer, or the question, is nothing but pointers into the document
 * ("Figure 3", "Table 2 and Section 4", "[12]", "page 7") once filler words (articles, prepositions,
 * wh-words, auxiliaries, "show/present/contain/describe/list/…", "paper/document") are removed. Deck numbering differs from the source's, so such
 * a probe measures nothing about content. The question side is the same test: "What is presented in
 * Table 2?" names an element and nothing else, while "What accuracy is reported in Table 2?" asks for a
 * fact and stays.
 */
export function isReferenceOnlyProbe(probe: FilterInput): boolean {
  return onlyPointers(probe.answer) || onlyPointers(probe.question);
}

/** True when the text names a numbered element and nothing but filler words beside it. */
function onlyPointers(text: string): boolean {
  if (!text.match(POINTER)) return false;
  return (
    text
      .replace(POINTER, ' ')
      .replace(FILLER, ' ')
      .replace(/[^\p{L}\p{N}]+/gu, '') === ''
  );
}

/** The first filter a probe fails, or null when it passes both. */
export function filterReasonFor(probe: FilterInput): FilterReason | null {
  if (isCitationListProbe(probe)) return 'citation_list';
  if (isReferenceOnlyProbe(probe)) return 'reference_only';
  return null;
}

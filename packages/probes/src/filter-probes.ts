/** The fields the filters read. */
export interface FilterInput {
  question: string;
  answer: string;
  evidence: ReadonlyArray<{ text: string }>;
}

export type FilterReason = 'citation_list' | 'reference_only';

// A question about the document's bibliography or what it cites.
const CITATION_QUESTION =
  /\b(references? (list|section)|list of references|bibliograph\w*|works cited|citations?|cited|cites|citing)\b/i;
// One bibliography entry: a numbered `[12]` head, or publication furniture (doi, arXiv, pp., vol.,
// "Proceedings of", "et al., 2019" / "et al. (2019)").
const BIBLIOGRAPHY_ENTRY =
  /^\s*\[\d{1,4}\]\s|\bdoi\s*[:.]?\s*10\.\d|\barxiv\s*[:.]?\s*\d{4}\.\d|\bpp\.\s*\d|\bvol\.\s*\d|\bproceedings of\b|\bet al\.?,?\s*\(?(19|20)\d{2}/i;

// A numbered pointer into the document: Figure 3, Fig. 2a, Table IV, Section 4.1, Eq. (5), [12], page 7.
const POINTER =
  /(\b(figures?|figs?\.?|tables?|sections?|secs?\.?|§|equations?|eqs?\.?|appendix|appendices|algorithms?|listings?|chapters?|pages?|pp?\.)\s*\(?[0-9ivxlc]+[a-z]?(\.\d+)*\)?|\[\d{1,4}(\s*[,–-]\s*\d{1,4})*\])/gi;
const POINTER_QUESTION =
  /\b(what|which)\b.{0,40}?(figure|fig\.?|table|section|sec\.?|equation|eq\.?|appendix|algorithm|listing|chapter|page|\[\d+\])\s*\(?[0-9ivxlc]*[a-z]?\)?\s*(show|shows|depict|depicts|illustrate|illustrates|present|presents|contain|contains|describe|describes|list|lists|display|displays|summari[sz]e|summari[sz]es|refer|refers)\b/i;
const FILLER = /\b(the|a|an|in|see|shown|is|are|and|of|on|at|as|per|according|to|source|document|paper)\b/gi;

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
 * Reference-only probe: the answer is nothing but pointers into the document ("Figure 3", "Table 2 and
 * Section 4", "[12]", "page 7") once filler words are removed, or the question asks what a numbered
 * element shows/contains ("What does Figure 3 show?"). Deck numbering differs from the source's, so such
 * a probe measures nothing about content.
 */
export function isReferenceOnlyProbe(probe: FilterInput): boolean {
  if (POINTER_QUESTION.test(probe.question)) return true;
  const pointers = probe.answer.match(POINTER);
  if (!pointers) return false;
  const rest = probe.answer.replace(POINTER, ' ').replace(FILLER, ' ').replace(/[^\p{L}\p{N}]+/gu, '');
  return rest === '';
}

/** The first filter a probe fails, or null when it passes both. */
export function filterReasonFor(probe: FilterInput): FilterReason | null {
  if (isCitationListProbe(probe)) return 'citation_list';
  if (isReferenceOnlyProbe(probe)) return 'reference_only';
  return null;
}

import { DOCUMENT_ELEMENT_WORDS } from './lexical-target-guards';

/** The fields the filters read. */
export interface FilterInput {
  question: string;
  answer: string;
  evidence: ReadonlyArray<{ text: string }>;
}

/**
 * Why a probe was filtered before grounding, in the order {@link filterReasonFor} tests them. Each is
 * counted apart in `filtered_by_reason` (with `page_furniture`, tested after grounding).
 */
export const FILTER_REASONS = [
  'url',
  'doi',
  'isbn',
  'credit_line',
  'bibliography_entry',
  'citation_list',
  'reference_only',
] as const;
export type FilterReason = (typeof FILTER_REASONS)[number];

// A web address: a scheme or www., or a bare host with a common top-level domain followed by a path
// ("tex.stackexchange.com/a/149991/5645", "commons.wikimedia.org/wiki/File:…").
const WEB_ADDRESS =
  /\b(?:https?:\/\/|ftp:\/\/|www\.)\S+|\b[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:com|org|net|edu|gov|io|info|int|de|at|ch|fr|es|it|nl|eu|uk|us|ca|au|jp|cn|ru|pl|se|no|dk|fi|be|pt|cz|ai|dev|app)(?::\d+)?\/\S*/i;
// A DOI: "doi:10.1145/…", "https://doi.org/10.…", or a bare "10.NNNN/…" identifier.
const DOI = /\bdoi\b|\b10\.\d{4,9}\/\S+/i;
// An ISBN, named or as an ISBN-13 (978/979 prefix, hyphenated or not).
const ISBN = /\bISBN(?:-1[03])?\b|\b97[89](?:[-\s]?\d){10}\b|\b97[89]-\d{1,5}-\d/i;
// A credit line: who made an image, under which licence (English, German, French, Spanish markers).
const CREDIT_LINE =
  /\b(?:image|photo|picture|figure|illustration|graphic)s?\s+(?:credits?|courtesy|source)\b|\bcredits?\s*:|\bcourtesy of\b|\bBild(?:quellen?|nachweis\w*|rechte)\b|\bAbbildungsnachweis\w*|\bQuellen?\s*:|\bSource\s*:|\bFotos?\s*:|\bPhotos?\s*:|\bcrédits?\b|\bfuente\s*:|©|\(c\)\s*(?:19|20)\d{2}|\bcopyright\b|\bCC[-\s]?(?:BY|0)\b|\bcreative commons\b|\bpublic domain\b|\blicen[cs]ed under\b/i;

// A question about the document's bibliography or what it cites.
const CITATION_QUESTION =
  /\b(references? (list|section)|references|list of references|bibliograph\w*|works cited|citations?|cited|cites|citing)\b/i;
// One bibliography entry: a numbered `[12]` head, or publication furniture (doi, arXiv, pp., vol.,
// "Proceedings of", "et al., 2019" / "et al. (2019)", an edition "2. Auflage" / "2nd ed.", a
// publisher "Springer-Verlag", "Hrsg.", a work pointed to ("see „Title“", "„Title“ von Author").
const BIBLIOGRAPHY_ENTRY =
  /^\s*\[\d{1,4}\]\s|\bdoi\s*[:.]?\s*10\.\d|\barxiv\s*[:.]?\s*\d{4}\.\d|\bpp\.\s*\d|\bvol\.\s*\d|\bproceedings of\b|\bet al\.?,?\s*\(?(19|20)\d{2}|\b\d{1,2}\.\s*Auflage\b|\b\d{1,2}(?:st|nd|rd|th)\s+ed(?:ition|\.)|\b\w+-Verlag\b|\bHrsg\.|\b[ée]d(?:ition|ici[óo]n)\s|\b(?:see|siehe|voir|v[ée]ase)\s+[„"“«]|[„"“«][^„"“”«»]{3,}[“"”»]\s+(?:von|by|de|par)\s+\p{Lu}/iu;

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
  return CITATION_QUESTION.test(probe.question) || isBibliographyEntryProbe(probe);
}

/**
 * Bibliography-entry probe: at least half of its evidence items (or its answer) are bibliography
 * entries — it asks about a reference, not about the content.
 */
export function isBibliographyEntryProbe(probe: FilterInput): boolean {
  if (BIBLIOGRAPHY_ENTRY.test(probe.answer)) return true;
  const entries = probe.evidence.filter((item) => BIBLIOGRAPHY_ENTRY.test(item.text)).length;
  return probe.evidence.length > 0 && entries * 2 >= probe.evidence.length;
}

/**
 * True when the question or the answer holds the pattern (a cloze question quotes its sentence, so
 * a URL in the sentence is in the question), or at least half of the evidence items do.
 */
function mentions(probe: FilterInput, pattern: RegExp): boolean {
  if (pattern.test(probe.question) || pattern.test(probe.answer)) return true;
  const hits = probe.evidence.filter((item) => pattern.test(item.text)).length;
  return probe.evidence.length > 0 && hits * 2 >= probe.evidence.length;
}

/** URL probe: its question or answer (or most of its evidence) holds a web address. */
export function isUrlProbe(probe: FilterInput): boolean {
  return mentions(probe, WEB_ADDRESS);
}

/** DOI probe: its question or answer (or most of its evidence) holds a DOI. */
export function isDoiProbe(probe: FilterInput): boolean {
  return mentions(probe, DOI);
}

/** ISBN probe: its question or answer (or most of its evidence) holds an ISBN. */
export function isIsbnProbe(probe: FilterInput): boolean {
  return mentions(probe, ISBN);
}

/**
 * Credit-line probe: its question or answer (or most of its evidence) is an image credit or a licence
 * line ("Image credit:", "Bildquelle", "Quelle:", "©", "CC BY", "courtesy of", "licensed under").
 */
export function isCreditLineProbe(probe: FilterInput): boolean {
  return mentions(probe, CREDIT_LINE);
}

/** Reference-only: question or answer only points into the document ("Figure 3"); deck numbering differs, so it measures nothing. */
export function isReferenceOnlyProbe(probe: FilterInput): boolean {
  return onlyPointers(probe.answer) || onlyPointers(probe.question) || POINTER_BLANK.test(probe.question);
}

// A cloze whose blank is the number of a document element ("Nach Bemerkung ____", "Figure ____",
// "§____"), in English, German, French or Spanish: the answer is a label, not content.
const POINTER_BLANK = new RegExp(`${DOCUMENT_ELEMENT_WORDS}____`, 'u');

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

const FILTERS: ReadonlyArray<[FilterReason, (probe: FilterInput) => boolean]> = [
  ['url', isUrlProbe],
  ['doi', isDoiProbe],
  ['isbn', isIsbnProbe],
  ['credit_line', isCreditLineProbe],
  ['bibliography_entry', isBibliographyEntryProbe],
  ['citation_list', isCitationListProbe],
  ['reference_only', isReferenceOnlyProbe],
];

/** The first filter a probe fails (in {@link FILTER_REASONS} order), or null when it passes all. */
export function filterReasonFor(probe: FilterInput): FilterReason | null {
  return FILTERS.find(([, fails]) => fails(probe))?.[0] ?? null;
}

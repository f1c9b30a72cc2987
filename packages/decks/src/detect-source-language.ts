/** Texts with fewer letters than this are not given a language: n-gram detectors guess on them. */
const MIN_LETTERS = 40;
/** Detection reads up to this many windows of WINDOW_CHARS spread evenly over the text. */
const WINDOWS = 4;
const WINDOW_CHARS = 4000;

type Detector = { detect(text: string): { language: string; isReliable(): boolean } };
let detector: Promise<Detector> | undefined;

/**
 * eld's "small" n-gram database costs ~0.5 s and ~60 MB to load, so it is loaded on the first
 * detection only: commands that never generate a deck do not pay for it.
 */
function loadDetector(): Promise<Detector> {
  detector ??= import('eld/small').then((module) => module.eld as Detector);
  return detector;
}

/**
 * Evenly spread windows of the text: a front matter in another language (an English abstract on a
 * German thesis) does not decide alone, and a 200 000-character source costs a few milliseconds.
 */
function sampleText(text: string): string {
  if (text.length <= WINDOWS * WINDOW_CHARS) return text;
  const step = (text.length - WINDOW_CHARS) / (WINDOWS - 1);
  return Array.from({ length: WINDOWS }, (_, index) => {
    const start = Math.round(index * step);
    return text.slice(start, start + WINDOW_CHARS);
  }).join('\n');
}

/**
 * The language of a source as an ISO 639-1 code (`en`, `de`, `zh`, …), from eld (Efficient Language
 * Detector, 60 languages), or `undefined` when the text is too short or eld calls its own answer
 * unreliable. Callers treat `undefined` as "unknown" and add no words of their own.
 */
export async function detectSourceLanguage(text: string): Promise<string | undefined> {
  const sample = sampleText(text);
  const letters = sample.match(/\p{L}/gu)?.length ?? 0;
  if (letters < MIN_LETTERS) return undefined;
  const result = (await loadDetector()).detect(sample);
  return result.language && result.isReliable() ? result.language : undefined;
}

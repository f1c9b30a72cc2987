/** Texts with fewer letters than this are not given a language: n-gram detectors guess on them. */
const MIN_LETTERS = 40;
/** Detection reads up to this many windows of WINDOW_CHARS spread evenly over the text. */
const WINDOWS = 4;
const WINDOW_CHARS = 4000;

type Detector = { detect(text: string): { language: string; isReliable(): boolean } };
let detector: Promise<Detector> | undefined;

/**
 * eld's "small" n-gram database costs ~0.5 s and ~150 MB to load, so it is loaded on the first
 * detection only: commands that never generate a deck do not pay for it.
 */
function loadDetector(): Promise<Detector> {
  detector ??= import('eld/small').then((module) => module.eld as Detector);
  return detector;
}

/**
 * Evenly spread windows of the text (the whole text when it is short): a 200 000-character source
 * costs a few milliseconds, and a front matter in another language does not decide alone.
 */
function sampleWindows(text: string): string[] {
  if (text.length <= WINDOWS * WINDOW_CHARS) return [text];
  const step = (text.length - WINDOW_CHARS) / (WINDOWS - 1);
  return Array.from({ length: WINDOWS }, (_, index) => {
    const start = Math.round(index * step);
    return text.slice(start, start + WINDOW_CHARS);
  });
}

/**
 * The language of a source as an ISO 639-1 code (`en`, `de`, `zh`, …), from eld (Efficient Language
 * Detector, 60 languages), or `undefined` when the text is too short or eld calls its own answer
 * unreliable. A long text is judged window by window and the language most windows agree on wins
 * (an English abstract on a German thesis is one window of four); a tie is no answer. Callers treat
 * `undefined` as "unknown" and add no words of their own.
 */
export async function detectSourceLanguage(text: string): Promise<string | undefined> {
  const eld = await loadDetector();
  const votes = new Map<string, number>();
  for (const window of sampleWindows(text)) {
    if ((window.match(/\p{L}/gu)?.length ?? 0) < MIN_LETTERS) continue;
    const result = eld.detect(window);
    if (result.language && result.isReliable())
      votes.set(result.language, (votes.get(result.language) ?? 0) + 1);
  }
  const ranked = [...votes].sort((a, b) => b[1] - a[1]);
  const [best, second] = ranked;
  if (!best || (second && second[1] === best[1])) return undefined;
  return best[0];
}

/** Writing systems the language check distinguishes; anything else counts as `Other`. */
const SCRIPTS = [
  'Latin',
  'Han',
  'Cyrillic',
  'Arabic',
  'Greek',
  'Hangul',
  'Kana',
  'Devanagari',
  'Other',
] as const;
export type Script = (typeof SCRIPTS)[number];

// One alternation per script, in SCRIPTS order, then any other letter: one pass over the text.
const LETTER_BY_SCRIPT =
  /(\p{Script=Latin})|(\p{Script=Han})|(\p{Script=Cyrillic})|(\p{Script=Arabic})|(\p{Script=Greek})|(\p{Script=Hangul})|([\p{Script=Hiragana}\p{Script=Katakana}])|(\p{Script=Devanagari})|(\p{L})/gu;

/** Letters per script. Digits, punctuation and symbols carry no language and are ignored. */
export function countScripts(text: string): Map<Script, number> {
  const counts = new Map<Script, number>();
  for (const match of text.matchAll(LETTER_BY_SCRIPT)) {
    const group = match.findIndex((value, index) => index > 0 && value !== undefined);
    const script = SCRIPTS[group - 1] as Script;
    counts.set(script, (counts.get(script) ?? 0) + 1);
  }
  return counts;
}

/** The script with the most letters, or undefined for text without letters. */
export function dominantScript(counts: Map<Script, number>): Script | undefined {
  let best: Script | undefined;
  let bestCount = 0;
  for (const script of SCRIPTS) {
    const count = counts.get(script) ?? 0;
    if (count > bestCount) {
      best = script;
      bestCount = count;
    }
  }
  return best;
}

const LANGUAGE_SCRIPTS: Record<string, Script> = {
  en: 'Latin',
  de: 'Latin',
  fr: 'Latin',
  es: 'Latin',
  it: 'Latin',
  pt: 'Latin',
  nl: 'Latin',
  zh: 'Han',
  ja: 'Kana',
  ko: 'Hangul',
  ru: 'Cyrillic',
  uk: 'Cyrillic',
  ar: 'Arabic',
  el: 'Greek',
  hi: 'Devanagari',
};

/** Language codes the `language` check knows the script of. */
export const KNOWN_LANGUAGES: readonly string[] = Object.keys(LANGUAGE_SCRIPTS);

/** The script a language is written in (`en`, `zh-CN`, ...), or undefined when not known. */
export function scriptOfLanguage(language: string): Script | undefined {
  return LANGUAGE_SCRIPTS[language.toLowerCase().split(/[-_]/)[0] ?? ''];
}

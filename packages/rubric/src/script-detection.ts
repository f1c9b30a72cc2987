/** Writing systems the language check distinguishes; anything else counts as `Other`. */
export const SCRIPTS = [
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

const SCRIPT_PATTERNS: Array<[Exclude<Script, 'Other'>, RegExp]> = [
  ['Latin', /\p{Script=Latin}/u],
  ['Han', /\p{Script=Han}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Arabic', /\p{Script=Arabic}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Hangul', /\p{Script=Hangul}/u],
  ['Kana', /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ['Devanagari', /\p{Script=Devanagari}/u],
];

/** Letters per script. Digits, punctuation and symbols carry no language and are ignored. */
export function countScripts(text: string): Map<Script, number> {
  const counts = new Map<Script, number>();
  for (const char of text) {
    if (!/\p{L}/u.test(char)) continue;
    const script = SCRIPT_PATTERNS.find(([, pattern]) => pattern.test(char))?.[0] ?? 'Other';
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

/** The script a language is written in (`en`, `zh-CN`, ...), or undefined when not known. */
export function scriptOfLanguage(language: string): Script | undefined {
  return LANGUAGE_SCRIPTS[language.toLowerCase().split(/[-_]/)[0] ?? ''];
}

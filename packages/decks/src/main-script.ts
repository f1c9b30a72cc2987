const SCRIPT_OF_LETTER: Array<[string, RegExp]> = [
  ['Latin', /\p{Script=Latin}/u],
  ['Kana', /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ['Han', /\p{Script=Han}/u],
  ['Hangul', /\p{Script=Hangul}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Arabic', /\p{Script=Arabic}/u],
];

/** The writing system most letters of the text are in (undefined without letters). */
export function mainScript(text: string): string | undefined {
  const counts = new Map<string, number>();
  for (const [letter] of text.matchAll(/\p{L}/gu)) {
    const script = SCRIPT_OF_LETTER.find(([, pattern]) => pattern.test(letter))?.[0] ?? 'Other';
    counts.set(script, (counts.get(script) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
}

/**
 * Two bullets of a deck are near-copies at this Jaccard similarity of their token sets. Han/Kana runs
 * (written without spaces) become character bigrams, so CJK bullets compare by what they say rather
 * than as one giant "word" each.
 */
export const NEAR_COPY_JACCARD = 0.9;

const PUNCTUATION = /[\p{P}]+/gu;
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]+/gu;

export function normaliseText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(PUNCTUATION, ' ').replace(/\s+/g, ' ').trim();
}

export function textTokens(text: string): Set<string> {
  const tokens = new Set<string>();
  for (const word of normaliseText(text).split(' ')) {
    if (word === '') continue;
    const rest = word.replace(CJK_RUN, (run) => {
      const characters = [...run];
      if (characters.length === 1) tokens.add(run);
      for (let index = 0; index + 1 < characters.length; index++) {
        tokens.add(`${characters[index]}${characters[index + 1]}`);
      }
      return ' ';
    });
    for (const part of rest.split(' ')) if (part !== '') tokens.add(part);
  }
  return tokens;
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const token of a) if (b.has(token)) shared++;
  return shared / (a.size + b.size - shared);
}

/** The bullets kept so far; one with nothing left after normalisation counts as a repeat (not readable). */
export class BulletRegister {
  private readonly normalised = new Set<string>();
  private readonly tokenSets: Array<Set<string>> = [];

  repeats(bullet: string): boolean {
    const normal = normaliseText(bullet);
    if (normal === '' || this.normalised.has(normal)) return true;
    const tokens = textTokens(bullet);
    return this.tokenSets.some((kept) => jaccard(kept, tokens) >= NEAR_COPY_JACCARD);
  }

  /** True (and recorded) when the bullet is new. */
  add(bullet: string): boolean {
    if (this.repeats(bullet)) return false;
    this.normalised.add(normaliseText(bullet));
    this.tokenSets.push(textTokens(bullet));
    return true;
  }
}

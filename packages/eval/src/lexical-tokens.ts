/**
 * The text normalisation shared by the offline (`lexical`) judges: lower-cased Unicode word tokens,
 * an English stopword list, a light suffix stemmer and number normalisation. Deterministic and
 * dependency-free; its blind spots (synonyms, paraphrase, negation, numbers written as words) are
 * documented in the package README.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been being but by can could did do does for from had has have he her his how ' +
    'i if in into is it its itself may might more most much must no nor not of on one or our out over ' +
    'she should so such than that the their them then there these they this those through to too under ' +
    'up us very was we were what when where which while who whom why will with would you your about ' +
    'after again against all also any because before below between both during each few further here ' +
    'just only other own same some until via per whose within without upon onto across among'
  ).split(' '),
);

const SUFFIXES = ['ations', 'ation', 'ments', 'ment', 'ings', 'ing', 'ies', 'ied', 'es', 'ed', 'ly', 's'];

/** Strips one common English suffix when at least four letters remain ("results" → "result"). */
export function stemToken(token: string): string {
  if (/^\d/.test(token)) return token;
  for (const suffix of SUFFIXES) {
    if (token.endsWith(suffix) && token.length - suffix.length >= 4) {
      const stem = token.slice(0, -suffix.length);
      return suffix === 'ies' || suffix === 'ied' ? `${stem}y` : stem;
    }
  }
  return token;
}

/** All word tokens, lower-cased, numbers kept as written ("1,200" is one token before normalising). */
export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:[.,'’][\p{L}\p{N}]+)*/gu) ?? [];
}

/** Content tokens: not stopwords, not numbers, at least 3 characters, stemmed. */
export function contentTokens(text: string, stopwords: ReadonlySet<string> = STOPWORDS): string[] {
  const result: string[] = [];
  for (const token of wordTokens(text)) {
    if (/\d/.test(token)) continue;
    const bare = token.replace(/[.,'’]/g, '');
    if (bare.length < 3 || stopwords.has(bare)) continue;
    result.push(stemToken(bare));
  }
  return result;
}

/**
 * Words that say nothing about a topic in the languages the probes are phrased in (en, de, fr, es):
 * the English stopwords, German, French and Spanish function words, the words of question
 * templates ("Fill in the blank", "Ergänzen Sie die Lücke", "how many") and the labels of a
 * document's parts ("Figure", "Bemerkung", "Satz"), which every numbered item carries. Without them a German
 * question's "die" or "und" would count as a term that any German slide shares.
 */
export const TOPIC_STOPWORDS: ReadonlySet<string> = new Set([
  ...STOPWORDS,
  ...// English question and template words
  (
    'many number value amount fill blank called named name given state stated ' +
    // labels of a document's parts, which number things rather than name a topic
    'figure table section chapter page appendix equation definition theorem lemma proof remark ' +
    'example proposition corollary exercise kapitel abschnitt abbildung tabelle seite gleichung ' +
    'satz beweis bemerkung beispiel folgerung korollar aufgabe lösung ' +
    // German
    'der die das den dem des ein eine einer eines einem einen und oder aber sind ist war waren wird ' +
    'werden wurde wurden sein seine seiner ihr ihre ihrer mit von vom zum zur auf aus bei für über ' +
    'unter nach vor durch gegen ohne als wie was wer wen wem wann warum welche welcher welches ' +
    'welchen viele wieviel nicht kein keine auch noch nur schon sehr dann denn doch dass daß sich sie ' +
    'wir ihm ihn man mir mich dies diese dieser dieses diesem diesen jede jeder jedes alle allen hat ' +
    'haben hatte kann können muss müssen soll sollen gibt gilt sei seien zwischen sowie bzw hier dort ' +
    'also dabei damit ihnen ergänzen lücke anzahl wert heißt ' +
    // French
    'les des une est sont était ont avec pour par dans sur sous entre mais que qui quoi quel quelle ' +
    'quels quelles combien comment pourquoi cet cette ces son ses leur leurs nous vous ils elles aux ' +
    'pas plus très aussi être avoir fait comme donc ainsi selon complétez blanc ' +
    // Spanish
    'los las una unos unas del con por para sin sobre pero qué quien quién cual cuál cuales cuáles ' +
    'cuántos cuántas cuánto cuanto como cómo donde dónde cuando este esta estos estas ese esa sus son ' +
    'está están ser fue más muy también hay tiene tienen complete espacio blanco'
  ).split(' '),
]);

/** Topic terms: content tokens without the function and template words of {@link TOPIC_STOPWORDS}. */
export function topicTerms(text: string): string[] {
  return contentTokens(text, TOPIC_STOPWORDS);
}

/**
 * Numbers in a text, normalised so that "1,200", "1200" and "1200.0" agree: thousands separators
 * removed, trailing fractional zeros dropped. Years, percentages and counts are all just numbers.
 */
export function extractNumbers(text: string): string[] {
  const found = text.match(/\d+(?:[.,]\d+)*/g) ?? [];
  return found.map(normaliseNumber);
}

export function normaliseNumber(raw: string): string {
  let value = raw;
  if (/^\d{1,3}(,\d{3})+(\.\d+)?$/.test(value)) value = value.replaceAll(',', '');
  else value = value.replace(',', '.');
  if (value.includes('.')) value = value.replace(/0+$/, '').replace(/\.$/, '');
  return value.replace(/^0+(?=\d)/, '');
}

/** Sentence-ish units: lines first (slides are bullet lists), then sentence ends within a line. */
export function splitSentences(text: string): string[] {
  const units: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    for (const piece of line.split(/(?<=[.!?])\s+(?=[\p{Lu}\d])/u)) {
      const trimmed = piece.replace(/^[\s•\-–*·▪◦]+/u, '').trim();
      if (trimmed) units.push(trimmed);
    }
  }
  return units;
}

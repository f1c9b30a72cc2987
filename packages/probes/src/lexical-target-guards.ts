/**
 * Guards on the cloze targets of the lexical generator: numbers and names that a PDF's formulas,
 * figure numbers or German capitalisation put in a sentence without being facts of the source.
 */

// Operators and brackets of formulas, and the debris a math font leaves when its glyphs are read as
// text ("6=" for ≠, "7→" for ↦).
const OPERATOR = /[=≠→↦←↔⇒⇔⇐∈∉∋⊆⊂⊇⊃∩∪×·∘◦+−±^<>≤≥∼≅≃≈∀∃∅∂∑∏∫√∞∠|\\′∗⊗⊕[\]{}⟨⟩〈〉]/u;
// The strong signs of a formula: a sentence with two different ones is math, not prose.
const STRONG_OPERATOR = /[=≠→↦⇒⇔∈∉⊆⊂⊇⊃∩∪×∀∃≤≥∼≅∅∂∑∫]/gu;

/** At least two different formula signs: "U ⊆ X1 × X2 sei offen, wenn …", "f : R → S1, t 7 → …". */
export function isMathSentence(text: string): boolean {
  return new Set(text.match(STRONG_OPERATOR) ?? []).size >= 2;
}

/**
 * A number that is part of a formula, not a fact: a number (without a unit) whose nearest neighbour
 * on either side (spaces skipped) is an operator or a bracket ("6 = ∅" is ≠ read as "6 =", "t 7 → x"
 * is ↦, "[0, 1]", "n − 1", "[0,1)"), or a lone one- or two-digit number that a function is applied to
 * ("γ(0)"), that ends an index list ("i = 1, 2, 3") or that sits in a sentence full of formula signs.
 */
export function isMathDebrisNumber(text: string, target: { value: string; at: number }): boolean {
  if (/%|percent/i.test(target.value)) return false;
  const before = text.slice(0, target.at).trimEnd();
  const after = text.slice(target.at + target.value.length).trimStart();
  const previous = before.at(-1) ?? '';
  const next = after[0] ?? '';
  if (OPERATOR.test(next) || OPERATOR.test(previous)) return true;
  if (!/^\d{1,2}$/.test(target.value)) return false;
  // "i = 1, 2, 3": an index list after an equals or element sign.
  if (/[=∈]\s*(?:\d{1,2}\s*,\s*)+$/u.test(before)) return true;
  // "T 2" (T²), "γ 1": an exponent or index set apart from its single-letter symbol.
  if (/(?:^|\s)[\p{Lu}\p{Script=Greek}]$/u.test(before) && /^\d$/.test(target.value)) return true;
  // "γ(0)", "π1(S1, 1)": an argument of a function, glued to its name.
  if (previous === '(' && /[\p{L}\p{N}′)]$/u.test(before.slice(0, -1))) return true;
  return isMathSentence(text);
}

// Words naming a numbered document element (English, German, French, Spanish): "Figure 3",
// "Bemerkung 14", "Abbildung 1.7:", "§4". Those that are also common words of prose ("for example
// 150", "by definition 2 …") count only capitalised; the unambiguous ones in either case.
export const DOCUMENT_ELEMENT_WORDS =
  '(?:\\b(?:[Ff]igures?|[Ff]igs?\\.|[Tt]ables?|[Ss]ections?|[Ss]ecs?\\.|[Ee]quations?|[Ee]qs?\\.|[Aa]ppendix|[Cc]hapters?|[Pp]ages?|pp?\\.|Algorithms?|Listings?|Remarks?|Examples?|Definitions?|Theorems?|Lemmas?|Propositions?|Corollar(?:y|ies)|Exercises?|Abbildung(?:en)?|Abb\\.|Tabellen?|Abschnitte?|Kapitel|Gleichung(?:en)?|Seiten?|S\\.|Bemerkung(?:en)?|Bem\\.|Beispiele?|Bsp\\.|Def\\.|Satz|Sätze|Lemmata|Korollare?|Folgerung(?:en)?|Aufgaben?|Übungs?(?:aufgaben?)?|Anhang|[Tt]ableaux?|[Cc]hapitres?|[ÉéEe]quations?|Exemples?|Remarques?|Théorèmes?|[Ff]iguras?|[Tt]ablas?|[Cc]apítulos?|[Ss]ecci[óo]n(?:es)?|[Ee]cuaci[óo]n(?:es)?|Ejemplos?|[Pp][áa]ginas?|Teoremas?)\\s*\\(?|§\\s*)';
const POINTER_WORD = new RegExp(`${DOCUMENT_ELEMENT_WORDS}$`, 'u');

/** A number that labels a document element ("Nach Bemerkung 14 …", "Abbildung 1.7:", "§4"). */
export function isPointerNumber(text: string, target: { value: string; at: number }): boolean {
  // A word hyphenated across a PDF line ("Abbil- dung 1.9") is read whole.
  const before = text.slice(Math.max(0, target.at - 40), target.at).replace(/(\p{L})- (\p{Ll})/gu, '$1$2');
  return POINTER_WORD.test(before);
}

// Function words that cannot open or close a name, per language (German capitalises every noun, so a
// capitalised run such as "Nach Definition", "Die Quotiententopologie" or "Umgebungen Die" is no name).
const NAME_EDGE_WORDS: Record<string, ReadonlySet<string>> = {
  de: new Set(
    (
      'der die das den dem des ein eine einer eines einem einen kein keine jede jeder jedes jeden ' +
      'alle nach mit von vom zu zum zur für auf aus bei in im an am um über unter durch gegen ohne ' +
      'sei seien ist sind war hat haben wird werden es er sie wir man dann denn da so also und oder ' +
      'aber wenn falls ob dass weil sodass nun hier dort dies diese dieser dieses wie was wer beweis ' +
      'gilt sonst somit damit daher insbesondere ebenso mein meine dein deine sein seine ihr ihre ' +
      'ihren ihrem ihrer unser unsere euer eure'
    ).split(' '),
  ),
  fr: new Set(
    (
      'le la les un une des du de au aux en dans par pour sur avec sans ce cet cette ces il elle ils ' +
      'elles on nous est sont et ou mais si que qui lorsque quand donc alors selon chaque tout tous'
    ).split(' '),
  ),
  es: new Set(
    (
      'el la los las un una unos unas del de al en por para con sin sobre este esta estos estas ese ' +
      'esa es son y o pero si que cuando se lo según cada todo todos entonces'
    ).split(' '),
  ),
};

// A short formula symbol: "Ui", "Ck", "I1", "Ux0", "R2", "TY".
const SYMBOL = /^(?:[A-Z][a-z]?\d*|[A-Z]{1,2}\d*|[A-Z][a-z]?\d+[a-z]?)$/;

/**
 * A capitalised run that is no name: one cut off inside a word; in a German, French or Spanish source a run that opens or
 * closes with a function word of that language ("Die Quotiententopologie", "QR Ist"); in a formula
 * sentence a run that ends in a symbol ("Umgebungen Ui", "Klasse Ck") or is one ("TY").
 */
export function isUnusableTerm(
  sentence: string,
  target: { value: string; at: number },
  sourceLanguage?: string,
): boolean {
  const { value, at } = target;
  // Cut off at a letter the name pattern does not know ("Schwarz- Wei" of "Schwarz- Weiß").
  if (/^\p{L}/u.test(sentence.slice(at + value.length)) || /\p{L}$/u.test(sentence.slice(0, at))) return true;
  // A symbol of a formula: "∠ABC", "∠M QA <".
  const previous = sentence.slice(0, at).trimEnd().at(-1) ?? '';
  const next = sentence.slice(at + value.length).trimStart()[0] ?? '';
  if (OPERATOR.test(previous) || OPERATOR.test(next)) return true;
  const words = value.split(/\s+/);
  const edges = NAME_EDGE_WORDS[sourceLanguage ?? ''];
  if (edges && (edges.has(words[0]!.toLowerCase()) || edges.has(words.at(-1)!.toLowerCase()))) return true;
  // A symbol with an index ends it ("Intervallen I1", "Jordankurve in R3"), in any sentence.
  if (words.length > 1 && /^[A-Z][a-z]?\d+[a-z]?$/.test(words.at(-1)!)) return true;
  if (!isMathSentence(sentence) && !/[∈⊆→=×]/u.test(sentence)) return false;
  return words.length === 1 ? value.length <= 3 : SYMBOL.test(words.at(-1)!);
}

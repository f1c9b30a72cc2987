/**
 * English function words (conjunctions, prepositions, determiners other than the articles, pronouns,
 * auxiliaries and modals, negation and sentence adverbs): a definition whose subject starts with one
 * ("Because ownership is …", "In Rust a value is …", "Each node is …") is a clause of a longer
 * sentence, not a term, and would ask "What is because ownership?". The lexical generator reads
 * English cues only; for other languages its definition pattern (`is`, `are`, `means` …) does not fire.
 */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set(
  [
    // conjunctions and subordinators
    'and or but nor yet so for because since although though while whilst whereas if unless until till',
    'when whenever where wherever after before once as than that whether both either neither lest',
    // prepositions
    'about above across against along amid among around at behind below beneath beside besides between',
    'beyond by despite down during except from in inside into like near of off on onto out outside over',
    'past per through throughout to toward towards under underneath unlike up upon via with within without',
    // determiners and quantifiers (the articles a, an, the excepted)
    'all any another each every few many more most much no other several some such same own one',
    // pronouns and possessives
    'i you he she it we they me him her us them my your his its our their this these those who whom whose',
    'which what there here',
    // auxiliaries and modals
    'am is are was were be been being do does did has have had can could may might must shall should will would',
    // negation and sentence adverbs
    'not also only even just very too then thus hence therefore however still now often always never',
    'sometimes usually perhaps maybe indeed again already rather quite almost instead otherwise moreover',
    'furthermore meanwhile nevertheless nonetheless accordingly consequently how why',
  ]
    .join(' ')
    .split(' '),
);

/**
 * Sentence adverbials that may open a definition without being part of its subject: "Thus a heat
 * pump is …", "In practice the SPF is …", "Today Raft is …". They are taken off and the rest is asked
 * about. Longer phrases first.
 */
const LEADING_ADVERBIALS: readonly string[] = [
  'in other words',
  'at its core',
  'in practice',
  'in short',
  'in general',
  'in essence',
  'in fact',
  'in particular',
  'by definition',
  'put simply',
  'simply put',
  'for example',
  'for instance',
  'also',
  'thus',
  'hence',
  'therefore',
  'consequently',
  'accordingly',
  'indeed',
  'moreover',
  'furthermore',
  'similarly',
  'likewise',
  'conversely',
  'instead',
  'formally',
  'informally',
  'essentially',
  'basically',
  'technically',
  'generally',
  'typically',
  'usually',
  'simply',
  'today',
  'now',
  'finally',
  'first',
  'second',
  'third',
  'next',
  'then',
];

/**
 * Words that make a subject a clause rather than a noun phrase wherever they stand in it: finite
 * verbs of being, having and doing, modals, subordinators and relative pronouns. "Three zones are
 * distinguished: the …" would ask "What is three zones are distinguished?".
 */
const CLAUSE_WORDS: ReadonlySet<string> = new Set(
  (
    'am is are was were be been being isn aren wasn weren do does did has have had can could may might ' +
    'must shall should will would cannot because since although though while whereas if unless until ' +
    'when whenever where that which who whom whose whether'
  ).split(' '),
);

/** The subject of a definition term, and whether a leading adverbial was taken off to get it. */
export interface DefinitionSubject {
  subject: string;
  rephrased: boolean;
}

/** The term a "What is X?" question may ask about, or undefined (the guards: README, Generators). */
export function definitionSubject(term: string): DefinitionSubject | undefined {
  let subject = term.trim();
  let rephrased = false;
  for (;;) {
    const lower = subject.toLowerCase();
    const adverbial = LEADING_ADVERBIALS.find((phrase) => lower.startsWith(`${phrase} `));
    if (!adverbial) break;
    subject = subject.slice(adverbial.length).trim();
    rephrased = true;
  }
  const words = subject.toLowerCase().split(/\s+/);
  // After an article, the word that follows must not be a function word either ("a few", "the other").
  const head = /^(a|an|the)$/.test(words[0] ?? '') ? words[1] : words[0];
  if (head === undefined || head === '' || FUNCTION_WORDS.has(head)) return undefined;
  // A finite verb or a clause opener anywhere in it: a clause, not a term.
  if (words.some((word) => CLAUSE_WORDS.has(word.replace(/[^\p{L}']/gu, '').replace(/'.*$/, ''))))
    return undefined;
  return { subject, rephrased };
}

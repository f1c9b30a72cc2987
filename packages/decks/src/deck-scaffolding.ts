/**
 * The words the baseline adds to a deck that do not come from the source (slide titles such as
 * "Key takeaways", the cover's "For <audience>"), in the source's language. A language without an
 * entry gets none: the planner then titles slides with words of the source only.
 */
export interface DeckScaffolding {
  language: ScaffoldingLanguage;
  /** Title of a first content slide whose section has no heading. */
  overview: string;
  /** Title of a later content slide whose section has no heading. */
  moreDetails: string;
  /** Title of the closing slide of best remaining sentences. */
  keyTakeaways: string;
  /** Title of a table slide without a topic; `{topic}` variant below. */
  keyFigures: string;
  keyFiguresOf: (topic: string) => string;
  /** Title of a chart slide about a topic. */
  atAGlance: (topic: string) => string;
  /** The cover's subtitle of a conditioned deck. */
  forAudience: (audience: string) => string;
  /** The built-in audiences' names in this language (other ids are shown as written). */
  audiences: Readonly<Record<string, string>>;
}

export const SCAFFOLDING_LANGUAGES = ['en', 'de', 'fr', 'es', 'zh', 'ja'] as const;
export type ScaffoldingLanguage = (typeof SCAFFOLDING_LANGUAGES)[number];

const SCAFFOLDING: Readonly<Record<ScaffoldingLanguage, DeckScaffolding>> = {
  en: {
    language: 'en',
    overview: 'Overview',
    moreDetails: 'More details',
    keyTakeaways: 'Key takeaways',
    keyFigures: 'Key figures',
    keyFiguresOf: (topic) => `${topic}: key figures`,
    atAGlance: (topic) => `${topic} at a glance`,
    forAudience: (audience) => `For ${audience}`,
    audiences: { specialists: 'specialists', learners: 'learners', decision_makers: 'decision makers' },
  },
  de: {
    language: 'de',
    overview: 'Überblick',
    moreDetails: 'Weitere Einzelheiten',
    keyTakeaways: 'Das Wichtigste in Kürze',
    keyFigures: 'Kennzahlen',
    keyFiguresOf: (topic) => `${topic}: Kennzahlen`,
    atAGlance: (topic) => `${topic} im Überblick`,
    forAudience: (audience) => `Für ${audience}`,
    audiences: { specialists: 'Fachleute', learners: 'Lernende', decision_makers: 'Entscheidungsträger' },
  },
  fr: {
    language: 'fr',
    overview: 'Aperçu',
    moreDetails: 'Plus de détails',
    keyTakeaways: 'À retenir',
    keyFigures: 'Chiffres clés',
    keyFiguresOf: (topic) => `${topic} : chiffres clés`,
    atAGlance: (topic) => `${topic} en un coup d’œil`,
    forAudience: (audience) => `Pour ${audience}`,
    audiences: {
      specialists: 'les spécialistes',
      learners: 'les apprenants',
      decision_makers: 'les décideurs',
    },
  },
  es: {
    language: 'es',
    overview: 'Visión general',
    moreDetails: 'Más detalles',
    keyTakeaways: 'Ideas clave',
    keyFigures: 'Cifras clave',
    keyFiguresOf: (topic) => `${topic}: cifras clave`,
    atAGlance: (topic) => `${topic} de un vistazo`,
    forAudience: (audience) => `Para ${audience}`,
    audiences: {
      specialists: 'especialistas',
      learners: 'estudiantes',
      decision_makers: 'responsables de decisiones',
    },
  },
  zh: {
    language: 'zh',
    overview: '概述',
    moreDetails: '更多细节',
    keyTakeaways: '要点总结',
    keyFigures: '关键数据',
    keyFiguresOf: (topic) => `${topic}：关键数据`,
    atAGlance: (topic) => `${topic}一览`,
    forAudience: (audience) => `面向${audience}`,
    audiences: { specialists: '专家', learners: '学习者', decision_makers: '决策者' },
  },
  // Kana-rich wording where Japanese allows it: a slide written only in kanji reads as Chinese to a
  // script check.
  ja: {
    language: 'ja',
    overview: 'はじめに',
    moreDetails: 'くわしい内容',
    keyTakeaways: 'まとめ',
    keyFigures: 'おもな数値',
    keyFiguresOf: (topic) => `${topic}のおもな数値`,
    atAGlance: (topic) => `${topic}をグラフで見る`,
    forAudience: (audience) => `${audience}のみなさまへ`,
    audiences: { specialists: '専門家', learners: '学習者', decision_makers: '意思決定者' },
  },
};

/** The scaffolding words for a language code (`de`, `zh-CN`, …), or undefined when we have none. */
export function scaffoldingFor(language: string | undefined): DeckScaffolding | undefined {
  const base = language?.toLowerCase().split(/[-_]/)[0] ?? '';
  return (SCAFFOLDING as Record<string, DeckScaffolding>)[base];
}

/** English names of the languages, for the model planner's instruction to write in the source's language. */
const LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  en: 'English',
  de: 'German',
  fr: 'French',
  es: 'Spanish',
  zh: 'Chinese',
  ja: 'Japanese',
  it: 'Italian',
  pt: 'Portuguese',
  nl: 'Dutch',
  ru: 'Russian',
  ko: 'Korean',
  ar: 'Arabic',
};

export function languageName(language: string): string {
  return LANGUAGE_NAMES[language] ?? language;
}

/** How an audience id reads on a slide: the built-in name in the deck's language, else the id with spaces. */
export function audienceLabel(audience: string, scaffolding: DeckScaffolding | undefined): string {
  return scaffolding?.audiences[audience] ?? audience.replace(/[_-]+/g, ' ');
}

/**
 * The words the baseline adds to a deck that do not come from the source (slide titles such as
 * "Key takeaways", the cover's "For <audience>"), in the source's language. A language without an
 * entry gets none: the planner then titles slides with words of the source only.
 */
export interface DeckScaffolding {
  language: ScaffoldingLanguage;
  /** Titles of untitled sections: the first content slide, then later ones. */
  overview: string;
  moreDetails: string;
  keyTakeaways: string;
  keyFigures: string;
  keyFiguresOf: (topic: string) => string;
  atAGlance: (topic: string) => string;
  forAudience: (audience: string) => string;
  /** The built-in audiences' names in this language (other ids are shown as written). */
  audiences: Readonly<Record<string, string>>;
  /**
   * The known scenes' names in this language, for an agnostic deck's cover (English needs none: the
   * scene id reads as its name). A scene without a name here is not put on a non-English cover.
   */
  scenes: Readonly<Record<string, string>>;
}

type ScaffoldingLanguage = 'en' | 'de' | 'fr' | 'es' | 'zh' | 'ja';

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
    scenes: {},
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
    scenes: {
      academic_research_talk: 'Wissenschaftlicher Fachvortrag',
      classroom_lecture: 'Vorlesung',
      investor_update: 'Bericht für Investoren',
      policy_briefing: 'Briefing für die Politik',
      product_launch: 'Produktvorstellung',
      public_health_briefing: 'Briefing zur öffentlichen Gesundheit',
      science_outreach_talk: 'Populärwissenschaftlicher Vortrag',
      training_workshop: 'Schulung',
    },
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
    scenes: {
      academic_research_talk: 'Exposé de recherche',
      classroom_lecture: 'Cours magistral',
      investor_update: 'Point aux investisseurs',
      policy_briefing: 'Note aux décideurs publics',
      product_launch: 'Lancement de produit',
      public_health_briefing: 'Point de santé publique',
      science_outreach_talk: 'Conférence de vulgarisation scientifique',
      training_workshop: 'Atelier de formation',
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
    scenes: {
      academic_research_talk: 'Charla de investigación académica',
      classroom_lecture: 'Clase magistral',
      investor_update: 'Informe para inversores',
      policy_briefing: 'Informe de políticas públicas',
      product_launch: 'Lanzamiento de producto',
      public_health_briefing: 'Informe de salud pública',
      science_outreach_talk: 'Charla de divulgación científica',
      training_workshop: 'Taller de formación',
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
    scenes: {
      academic_research_talk: '学术研究报告',
      classroom_lecture: '课堂讲授',
      investor_update: '投资者简报',
      policy_briefing: '政策简报',
      product_launch: '产品发布',
      public_health_briefing: '公共卫生简报',
      science_outreach_talk: '科普讲座',
      training_workshop: '培训工作坊',
    },
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
    scenes: {
      academic_research_talk: '研究のご報告',
      classroom_lecture: 'みんなで学ぶ講義',
      investor_update: '投資家のみなさまへのご報告',
      policy_briefing: '政策についてのご説明',
      product_launch: '新しい製品のご紹介',
      public_health_briefing: '公衆衛生についてのご説明',
      science_outreach_talk: 'やさしい科学のおはなし',
      training_workshop: '研修のワークショップ',
    },
  },
};

export function scaffoldingFor(language: string | undefined): DeckScaffolding | undefined {
  const base = language?.toLowerCase().split(/[-_]/)[0] ?? '';
  return (SCAFFOLDING as Record<string, DeckScaffolding>)[base];
}

/** For the model planner's instruction to write in the source's language. */
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

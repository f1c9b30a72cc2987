export { chunkSourceText } from './chunk-source-text';
export { createProbeGenerator } from './create-probe-generator';
export {
  DEDUP_THRESHOLDS,
  deduplicateProbes,
  deduplicateProbesAllPairs,
  isDuplicatePair,
  probeTokens,
} from './deduplicate-probes';
export {
  FILTER_REASONS,
  filterReasonFor,
  isBibliographyEntryProbe,
  isCitationListProbe,
  isCreditLineProbe,
  isDoiProbe,
  isIsbnProbe,
  isReferenceOnlyProbe,
  isUrlProbe,
} from './filter-probes';
export { type CaseProbesResult, generateCaseProbes, generateRunProbes } from './generate-case-probes';
export { GroundingIndex } from './ground-evidence';
export {
  LEXICAL_DEFINITION,
  LEXICAL_GLOSSARY,
  LEXICAL_NAMED_TERM,
  LEXICAL_RELATION,
  LEXICAL_THEME_CUES,
} from './lexical-cues';
export { definitionSubject, FUNCTION_WORDS } from './lexical-definition-subject';
export { LexicalProbeGenerator } from './lexical-probe-generator';
export {
  listProbeLanguageNotes,
  questionTemplates,
  TEMPLATE_LANGUAGES,
  templateLanguageFor,
  templateLanguageNote,
} from './lexical-question-templates';
export { isMathDebrisNumber, isMathSentence, isPointerNumber, isUnusableTerm } from './lexical-target-guards';
export { isPageFurnitureProbe } from './page-furniture-filter';
export { buildProbeGenerationRequest, parseProbeGenerationAnswer } from './probe-generation-prompt';
export { PROBE_DEFAULTS, PROBES_STAGE, type ProbesUnit, probesWorkList } from './probes-work-list';
export { jaccardSimilarity, normalizeText, overlapCoefficient, tokenSet } from './text-tokens';

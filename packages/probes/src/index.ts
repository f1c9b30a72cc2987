export { chunkSourceText, type SourceChunk } from './chunk-source-text';
export { createProbeGenerator } from './create-probe-generator';
export {
  DEDUP_THRESHOLDS,
  type DedupInput,
  type DedupResult,
  deduplicateProbes,
  deduplicateProbesAllPairs,
  isDuplicatePair,
  type ProbeTokens,
  probeTokens,
} from './deduplicate-probes';
export {
  FILTER_REASONS,
  type FilterInput,
  type FilterReason,
  filterReasonFor,
  isBibliographyEntryProbe,
  isCitationListProbe,
  isCreditLineProbe,
  isDoiProbe,
  isIsbnProbe,
  isReferenceOnlyProbe,
  isUrlProbe,
} from './filter-probes';
export {
  type CaseProbesResult,
  type GenerateProbesOptions,
  generateCaseProbes,
  generateRunProbes,
} from './generate-case-probes';
export type { GeneratedProbe, GenerationInput, GenerationOutput, ProbeGenerator } from './generated-probe';
export { type EvidenceMatch, GroundingIndex } from './ground-evidence';
export {
  LEXICAL_DEFINITION,
  LEXICAL_GLOSSARY,
  LEXICAL_NAMED_TERM,
  LEXICAL_RELATION,
  LEXICAL_THEME_CUES,
} from './lexical-cues';
export { type DefinitionSubject, definitionSubject, FUNCTION_WORDS } from './lexical-definition-subject';
export { LexicalProbeGenerator } from './lexical-probe-generator';
export {
  listProbeLanguageNotes,
  type QuestionTemplates,
  questionTemplates,
  TEMPLATE_LANGUAGES,
  type TemplateLanguage,
  templateLanguageFor,
  templateLanguageNote,
} from './lexical-question-templates';
export { isMathDebrisNumber, isMathSentence, isPointerNumber, isUnusableTerm } from './lexical-target-guards';
export { isPageFurnitureProbe } from './page-furniture-filter';
export {
  buildProbeGenerationRequest,
  type ParsedProbeAnswer,
  parseProbeGenerationAnswer,
} from './probe-generation-prompt';
export {
  type CaseProbesInput,
  PROBE_DEFAULTS,
  PROBES_STAGE,
  type ProbeBankOptions,
  type ProbesUnit,
  probesWorkList,
} from './probes-work-list';
export { jaccardSimilarity, normalizeText, overlapCoefficient, tokenSet } from './text-tokens';

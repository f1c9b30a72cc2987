export { chunkSourceText } from './chunk-source-text';
export { createProbeGenerator } from './create-probe-generator';
export { deduplicateProbes } from './deduplicate-probes';
export { isReferenceOnlyProbe } from './filter-probes';
export { type CaseProbesResult, generateCaseProbes, generateRunProbes } from './generate-case-probes';
export {
  LEXICAL_DEFINITION,
  LEXICAL_GLOSSARY,
  LEXICAL_NAMED_TERM,
  LEXICAL_RELATION,
  LEXICAL_THEME_CUES,
} from './lexical-cues';
export { LexicalProbeGenerator } from './lexical-probe-generator';
export { listProbeLanguageNotes, templateLanguageNote } from './lexical-question-templates';
export { PROBE_DEFAULTS, PROBES_STAGE, probesWorkList } from './probes-work-list';

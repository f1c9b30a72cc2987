// The detector moved to @xsb/core (stage 2's lexical probes phrase questions in the source's language
// and may not import decks); decks keeps its names for callers that import them from here.
export {
  detectSourceLanguage,
  isLanguageDetectorRunning,
  LANGUAGE_DETECTOR_IDLE_MS,
  stopLanguageDetector,
} from '@xsb/core';

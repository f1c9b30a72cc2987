/** What a case's language is when nothing says: ISO 639's code for "undetermined". */
export const UNDETERMINED_LANGUAGE = 'und';

/**
 * The language of a case for stratifying splits and reporting rows: the source metadata's `language`
 * (ISO 639-1), else `und`. The one rule every bench module uses, so a language detector can replace
 * the fallback in one place.
 */
export function caseLanguage(metadata: { language?: string | undefined }): string {
  return metadata.language ?? UNDETERMINED_LANGUAGE;
}

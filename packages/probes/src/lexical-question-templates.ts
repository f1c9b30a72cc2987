import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { compareCodePoints, probeGenerationStatusSchema, type RunLayout, readJson } from '@xsb/core';

/**
 * The question wording of the lexical generator per language. The languages are those the baseline
 * deck writes in (en, de, fr, es); a source in any other language (or one whose language is not
 * known) gets the English templates, and each probe records the template language it used
 * (`metadata.template_language`), so a report can say the questions are not in the source's language.
 */
export interface QuestionTemplates {
  /** A cloze question around the sentence with its blank. */
  cloze: (sentenceWithBlank: string) => string;
  /** "What is X?" for a defined term. */
  definition: (term: string) => string;
}

const TEMPLATES = {
  en: {
    cloze: (sentence) => `Fill in the blank: "${sentence}"`,
    definition: (term) => `What is ${term}?`,
  },
  de: {
    cloze: (sentence) => `Ergänzen Sie die Lücke: „${sentence}“`,
    definition: (term) => `Was ist ${term}?`,
  },
  fr: {
    cloze: (sentence) => `Complétez le blanc : « ${sentence} »`,
    definition: (term) => `Qu’est-ce que ${term} ?`,
  },
  es: {
    cloze: (sentence) => `Complete el espacio en blanco: «${sentence}»`,
    definition: (term) => `¿Qué es ${term}?`,
  },
} satisfies Record<string, QuestionTemplates>;

export type TemplateLanguage = keyof typeof TEMPLATES;

/** The languages with question templates of their own. */
export const TEMPLATE_LANGUAGES: readonly TemplateLanguage[] = Object.keys(TEMPLATES) as TemplateLanguage[];

/**
 * The template language for a source language (ISO 639-1, as `detectSourceLanguage` gives it): the
 * language itself when it has templates, else English.
 */
export function templateLanguageFor(sourceLanguage: string | undefined): TemplateLanguage {
  return sourceLanguage !== undefined && sourceLanguage in TEMPLATES
    ? (sourceLanguage as TemplateLanguage)
    : 'en';
}

export function questionTemplates(language: TemplateLanguage): QuestionTemplates {
  return TEMPLATES[language];
}

/**
 * The line a report prints when a bank's template-phrased questions are not in the source's language
 * (no templates for it, or its language unknown); undefined when they are, or when no probe was
 * phrased from templates (a model's bank).
 */
export function templateLanguageNote(status: {
  case_id: string;
  source_language?: unknown;
  template_languages?: unknown;
}): string | undefined {
  const used = Array.isArray(status.template_languages) ? status.template_languages.map(String) : [];
  const source = typeof status.source_language === 'string' ? status.source_language : undefined;
  const foreign = used.filter((language) => language !== source);
  if (foreign.length === 0) return undefined;
  const why = source === undefined ? 'the source language is unknown' : `no templates for "${source}"`;
  return `case ${status.case_id}: questions use ${foreign.join(', ')} templates (${why}; metadata.template_language says so per probe)`;
}

/**
 * The {@link templateLanguageNote} of every finished bank of the data folder whose questions are not
 * in the source's language, sorted by case; only among `caseLabels` when given. Stage 7 records them
 * as `probe_language_notes`, so report.md and the HTML report say so too.
 */
export async function listProbeLanguageNotes(
  layout: RunLayout,
  caseLabels?: Iterable<string>,
): Promise<string[]> {
  const root = layout.probesRoot();
  const labels = caseLabels
    ? [...new Set(caseLabels)]
    : existsSync(root)
      ? (await readdir(root, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name)
      : [];
  const notes: string[] = [];
  for (const label of labels.sort(compareCodePoints)) {
    const file = layout.probeStatusFile(label);
    if (!existsSync(file)) continue;
    const status = await readJson(file, probeGenerationStatusSchema).catch(() => undefined);
    const note = status?.status === 'complete' ? templateLanguageNote(status) : undefined;
    if (note) notes.push(note);
  }
  return notes;
}

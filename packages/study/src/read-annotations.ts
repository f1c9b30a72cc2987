import { basename } from 'node:path';
import { readUtf8Text, ValidationError } from '@xsb/core';
import type { CaseRankings } from './align/case-rankings';
import { type AnnotationLine, annotationLineSchema } from './schemas/annotation-line';
import type { StudyRecord } from './schemas/study-record';

/** One annotator's answers, checked against the study. */
export interface AnnotatorAnswers {
  annotator: string;
  file: string;
  lines: AnnotationLine[];
}

/** The annotator a file is by: its name without `.jsonl` (`annotations/<annotator>.jsonl`). */
export function annotatorOf(file: string): string {
  const name = basename(file).replace(/\.jsonl$/i, '');
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name))
    throw new ValidationError(
      'the file name must be the annotator id (1-64 letters, digits, "_", "." or "-") followed by .jsonl',
      { file },
    );
  return name;
}

/**
 * An annotator's JSONL answers, every line checked against the study: valid JSON of the annotation shape, a
 * case of the study, a ranking that is a permutation of that case's labels, and one answer per case. The first
 * fault is a ValidationError naming the file, the line and the field; nothing is half-read.
 */
export async function readAnnotations(file: string, study: StudyRecord): Promise<AnnotatorAnswers> {
  return parseAnnotations(await readUtf8Text(file), file, study);
}

/** {@link readAnnotations} on text already read (an upload), `file` naming it in errors and giving the annotator. */
export function parseAnnotations(text: string, file: string, study: StudyRecord): AnnotatorAnswers {
  const annotator = annotatorOf(file);
  const labelsOf = new Map(study.cases.map((c) => [c.case, c.decks.map((deck) => deck.label)]));
  const seen = new Map<string, number>();
  const lines: AnnotationLine[] = [];
  for (const [index, raw] of text.split('\n').entries()) {
    const line = index + 1;
    if (raw.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (error) {
      throw new ValidationError(`not valid JSON (${(error as Error).message})`, { file, line });
    }
    const result = annotationLineSchema.safeParse(parsed);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      throw new ValidationError(issue.message, { file, line, field: issue.path.join('.') || undefined });
    }
    const answer = result.data;
    const labels = labelsOf.get(answer.case);
    if (!labels)
      throw new ValidationError(`no case "${answer.case}" in the study`, { file, line, field: 'case' });
    const unknown = answer.ranking.filter((label) => !labels.includes(label));
    if (unknown.length > 0)
      throw new ValidationError(
        `label ${unknown.map((l) => JSON.stringify(l)).join(', ')} is not a deck of case "${answer.case}" (its labels: ${labels.join(', ')})`,
        { file, line, field: 'ranking' },
      );
    if (new Set(answer.ranking).size !== answer.ranking.length || answer.ranking.length !== labels.length)
      throw new ValidationError(
        `the ranking must name each of the case's ${labels.length} decks once (${labels.join(', ')}), got ${answer.ranking.join(', ')}`,
        { file, line, field: 'ranking' },
      );
    const earlier = seen.get(answer.case);
    if (earlier !== undefined)
      throw new ValidationError(
        `a second answer for case "${answer.case}" (the first is on line ${earlier})`,
        {
          file,
          line,
          field: 'case',
        },
      );
    seen.set(answer.case, line);
    lines.push(answer);
  }
  return { annotator, file, lines };
}

/** The study's cases with every annotator's ranking, as the alignment tables read them. */
export function caseRankingsOf(study: StudyRecord, answers: readonly AnnotatorAnswers[]): CaseRankings[] {
  return study.cases.map((studyCase) => ({
    case: studyCase.case,
    labels: studyCase.decks.map((deck) => deck.label),
    rankings: new Map(
      answers.flatMap(({ annotator, lines }) =>
        lines
          .filter((line) => line.case === studyCase.case)
          .map((line) => [annotator, line.ranking] as const),
      ),
    ),
  }));
}

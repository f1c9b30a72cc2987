import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readJson, UsageError, writeFileAtomic } from '@xsb/core';
import { STUDY_FILES } from './create/study-files';
import { type AnnotatorAnswers, readAnnotations } from './read-annotations';
import { type StudyRecord, studyRecordSchema } from './schemas/study-record';

/** A study's record, with a clear error when the folder holds none. */
export async function readStudy(dir: string): Promise<StudyRecord> {
  const file = join(dir, STUDY_FILES.study);
  if (!existsSync(file))
    throw new UsageError(`${dir} holds no study (no ${STUDY_FILES.study}); create one first`, {
      code: 'missing_file',
    });
  return readJson(file, studyRecordSchema);
}

/**
 * `xsb study import FILE…`: downloaded answer files checked against the study (every file first, so one bad line
 * files nothing) and filed as `annotations/<annotator>.jsonl`, replacing that annotator's earlier file (a later
 * download holds everything the browser kept). Two files of one annotator in one import are refused.
 */
export async function importAnnotations(dir: string, files: readonly string[]): Promise<AnnotatorAnswers[]> {
  const study = await readStudy(dir);
  const answers: AnnotatorAnswers[] = [];
  for (const file of files) answers.push(await readAnnotations(file, study));
  const annotators = answers.map((a) => a.annotator);
  const twice = annotators.find((annotator, i) => annotators.indexOf(annotator) !== i);
  if (twice)
    throw new UsageError(`two files of annotator "${twice}" in one import: give one (the later download)`);
  for (const { annotator, lines } of answers)
    await writeFileAtomic(
      join(dir, STUDY_FILES.annotations, `${annotator}.jsonl`),
      lines.map((line) => `${JSON.stringify(line)}\n`).join(''),
    );
  return answers;
}

/** Every annotator's filed answers (`annotations/*.jsonl`), checked against the study, in annotator order. */
export async function readStudyAnnotations(dir: string, study: StudyRecord): Promise<AnnotatorAnswers[]> {
  const folder = join(dir, STUDY_FILES.annotations);
  if (!existsSync(folder)) return [];
  const names = (await readdir(folder)).filter((name) => name.endsWith('.jsonl')).sort();
  const answers: AnnotatorAnswers[] = [];
  for (const name of names) answers.push(await readAnnotations(join(folder, name), study));
  return answers;
}

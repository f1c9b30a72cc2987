/** The files of a study folder. */
export const STUDY_FILES = {
  study: 'study.json',
  key: 'key.json',
  page: 'index.html',
  annotations: 'annotations',
  align: 'align.json',
  alignReport: 'align.md',
} as const;

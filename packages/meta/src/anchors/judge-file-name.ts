import { basename } from 'node:path';
import { evaluationFilesFor } from '@xsb/rubric';

/**
 * A judge id as a file-name part (`openai:gpt-4o` → `openai_gpt-4o`), the same rule the rubric uses
 * for `<deck>.xsb_rubric_<judge>.json`, taken from it so the two never differ.
 */
export function judgeFileName(judge: string): string {
  return basename(evaluationFilesFor('x', judge).evaluation)
    .replace(/^x\.xsb_rubric_/, '')
    .replace(/\.json$/, '');
}

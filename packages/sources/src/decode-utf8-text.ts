import { decodeUtf8Text, InputError } from '@xsb/core';

/**
 * Markdown and plain text are used as written (spec 000: "direct UTF-8 read"); only trailing spaces
 * on lines and runs of more than two blank lines are trimmed. A file with no visible text fails.
 */
export function extractPlainText(bytes: Uint8Array, file: string): string {
  const text = decodeUtf8Text(bytes, file)
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (text === '') throw new InputError('the file holds no text', { file, code: 'no_text' });
  return text;
}

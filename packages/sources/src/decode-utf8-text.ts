import { decodeUtf8Text, InputError } from '@xsb/core';

/** Spec 000: markdown and text are a "direct UTF-8 read"; only trailing spaces and blank-line runs go. */
export function extractPlainText(bytes: Uint8Array, file: string): string {
  const text = decodeUtf8Text(bytes, file)
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (text === '') throw new InputError('the file holds no text', { file, code: 'no_text' });
  return text;
}

import { InputError } from '@xsb/core';

/**
 * Decodes bytes as strict UTF-8 (an invalid sequence is an error, never a silent U+FFFD), drops a
 * leading byte-order mark and normalises CRLF/CR line ends to LF so char offsets are stable across
 * platforms. `file` is named in every error.
 */
export function decodeUtf8Text(bytes: Uint8Array, file: string): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (error) {
    throw new InputError('file is not valid UTF-8 (save it as UTF-8 and retry)', {
      file,
      code: 'invalid_utf8',
      cause: error,
    });
  }
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

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

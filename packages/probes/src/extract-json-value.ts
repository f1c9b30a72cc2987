/**
 * Pulls the JSON value out of a model answer that may wrap it in prose or a code fence: tries the whole
 * text, then each fenced block, then the span from the first `[` or `{` to its last matching closer.
 * Returns undefined when nothing parses.
 */
export function extractJsonValue(text: string): unknown {
  const attempts: string[] = [text.trim()];
  for (const match of text.matchAll(/```[a-zA-Z0-9_-]*\s*\n?([\s\S]*?)```/g)) attempts.push(match[1]!.trim());
  for (const [open, close] of [
    ['[', ']'],
    ['{', '}'],
  ] as const) {
    const first = text.indexOf(open);
    const last = text.lastIndexOf(close);
    if (first !== -1 && last > first) attempts.push(text.slice(first, last + 1));
  }
  for (const attempt of attempts) {
    if (attempt === '') continue;
    try {
      return JSON.parse(attempt);
    } catch {
      // try the next candidate span
    }
  }
  return undefined;
}

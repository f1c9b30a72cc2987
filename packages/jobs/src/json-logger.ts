import { type Logger, pino } from 'pino';

export type JsonLogger = Logger;

/**
 * The log of `xsb serve` and `xsb worker`: one JSON object per line through pino, every value escaped
 * by JSON, so no URL, header or form field can start a line of its own (a `%0d%0a` in a path stays
 * inside its string). `write` receives each line without its newline; `bindings` go on every line
 * (e.g. `{ process: 1 }` for a cluster member). Time is ISO 8601; `pid` and `hostname` are pino's.
 */
export function createJsonLogger(
  write: (line: string) => void,
  bindings: Record<string, unknown> = {},
): JsonLogger {
  const destination = {
    write(chunk: string) {
      write(chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk);
    },
  };
  const logger = pino({ timestamp: pino.stdTimeFunctions.isoTime }, destination);
  return Object.keys(bindings).length > 0 ? logger.child(bindings) : logger;
}

/** A line sink that drops everything (a server started without a log). */
export const discardLines = (_line: string): void => {};

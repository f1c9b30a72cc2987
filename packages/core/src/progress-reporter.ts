/**
 * Progress for long stages. Libraries take a `ProgressReporter` and call it; apps choose the
 * implementation: a live bar on a terminal, throttled plain lines in logs and CI, or silence.
 */
export interface ProgressReporter {
  start(label: string, total: number): void;
  tick(count?: number, note?: string): void;
  finish(summary?: string): void;
}

export const silentProgress: ProgressReporter = {
  start() {},
  tick() {},
  finish() {},
};

export interface ProgressOptions {
  stream?: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** Force plain lines (CI or a pipe); defaults to `!stream.isTTY || env.CI`. */
  plain?: boolean;
  /** Minimum ms between plain lines. Default 5000. */
  plainIntervalMs?: number;
  /** Minimum ms between bar redraws. Default 100. */
  barIntervalMs?: number;
  now?: () => number;
}

/** `42s`, `3m05s`, `2h07m`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

export function createProgressReporter(options: ProgressOptions = {}): ProgressReporter {
  const stream = options.stream ?? process.stderr;
  const plain = options.plain ?? (!stream.isTTY || Boolean(process.env.CI));
  const now = options.now ?? Date.now;
  const interval = plain ? (options.plainIntervalMs ?? 5000) : (options.barIntervalMs ?? 100);
  let label = '';
  let total = 0;
  let done = 0;
  let startedAt = 0;
  let lastDraw = -Infinity;
  let lastNote = '';
  let drawnState = '';

  const percent = () => (total > 0 ? Math.floor((done / total) * 100) : 100);

  const draw = (force: boolean) => {
    const t = now();
    if (!force && t - lastDraw < interval) return;
    // Never print the same state twice (e.g. the last tick and finish() without a new summary).
    const state = `${done}/${total}/${lastNote}`;
    if (plain && state === drawnState) return;
    drawnState = state;
    lastDraw = t;
    const elapsedMs = t - startedAt;
    const elapsed = (elapsedMs / 1000).toFixed(1);
    // Remaining time at the average pace so far; shown once something is done and until the end.
    const eta = done > 0 && done < total ? ` ETA ${formatDuration((elapsedMs / done) * (total - done))}` : '';
    if (plain) {
      stream.write(
        `${label}: ${done}/${total} (${percent()}%) ${elapsed}s${eta}${lastNote ? ` ${lastNote}` : ''}\n`,
      );
      return;
    }
    const width = 24;
    const filled = total > 0 ? Math.round((done / total) * width) : width;
    const bar = `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`;
    const line = `${label} [${bar}] ${done}/${total} ${percent()}% ${elapsed}s${eta}${lastNote ? ` ${lastNote}` : ''}`;
    const columns = stream.columns ?? 100;
    stream.write(`\r${line.slice(0, columns - 1).padEnd(Math.min(columns - 1, line.length))}\x1b[K`);
  };

  return {
    start(newLabel, newTotal) {
      label = newLabel;
      total = newTotal;
      done = 0;
      lastNote = '';
      drawnState = '';
      startedAt = now();
      lastDraw = -Infinity;
      draw(true);
    },
    tick(count = 1, note) {
      done += count;
      if (note !== undefined) lastNote = note;
      draw(done >= total);
    },
    finish(summary) {
      if (summary !== undefined) lastNote = summary;
      draw(true);
      if (!plain) stream.write('\n');
    },
  };
}

/**
 * Progress for long stages. Libraries take a `ProgressReporter` and call it; apps choose the
 * implementation: a live bar on a terminal, throttled plain lines in logs and CI, or silence.
 *
 * Count at the finest unit that costs time (judge calls or batches, not only cases) and say which
 * (`start(label, total, { unit })`); the line then shows `done/total unit`, the share, the elapsed
 * time and an ETA. Work found after `start` (a case's chunks are known once its source is read)
 * raises the total with `grow`; work that turned out to need nothing (a batch reused from an earlier
 * run) is counted with `skip`, so it advances the count without making the ETA look faster than the
 * judge is.
 */
export interface ProgressReporter {
  start(label: string, total: number, options?: ProgressStartOptions): void;
  /** `count` items of real work done (default 1); `note` replaces the line's note. */
  tick(count?: number, note?: string): void;
  finish(summary?: string): void;
  /** Raises the total by `count` items (work discovered while running). */
  grow?(count: number): void;
  /** `count` items done without work (reused, cached): counted, but left out of the ETA's rate. */
  skip?(count: number, note?: string): void;
}

export interface ProgressStartOptions {
  /** What one item is, printed after the count: `judge calls`, `batches`, `cases`. */
  unit?: string;
}

export const silentProgress: ProgressReporter = {
  start() {},
  tick() {},
  finish() {},
  grow() {},
  skip() {},
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

/** `42s`, `3m05s`, `1h02m`: short enough for a progress line. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/**
 * The time left at the rate of the real work done so far: `elapsed / worked × remaining`. Skipped
 * items count as done but not as work, so a resumed run's ETA is not shortened by its reused batches.
 * Undefined before any real work or when nothing remains.
 */
export function estimateRemainingMs(state: {
  elapsedMs: number;
  worked: number;
  done: number;
  total: number;
}): number | undefined {
  const remaining = state.total - state.done;
  if (state.worked <= 0 || remaining <= 0) return undefined;
  return (state.elapsedMs / state.worked) * remaining;
}

export function createProgressReporter(options: ProgressOptions = {}): ProgressReporter {
  const stream = options.stream ?? process.stderr;
  const plain = options.plain ?? (!stream.isTTY || Boolean(process.env.CI));
  const now = options.now ?? Date.now;
  const interval = plain ? (options.plainIntervalMs ?? 5000) : (options.barIntervalMs ?? 100);
  let label = '';
  let unit = '';
  let total = 0;
  let done = 0;
  let worked = 0;
  let startedAt = 0;
  let lastDraw = -Infinity;
  let lastNote = '';
  let drawnState = '';
  let finished = false;
  // Reaching the total is drawn at once, unless the total grows as work is found: then every
  // verification batch would "complete" it again, and finish() draws the end instead.
  let grown = false;

  const percent = () => (total > 0 ? Math.floor((Math.min(done, total) / total) * 100) : 100);

  const timing = (t: number) => {
    const elapsedMs = t - startedAt;
    const eta = finished ? undefined : estimateRemainingMs({ elapsedMs, worked, done, total });
    return `${(elapsedMs / 1000).toFixed(1)}s${eta === undefined ? '' : `, ETA ${formatDuration(eta)}`}`;
  };

  const draw = (force: boolean) => {
    const t = now();
    if (!force && t - lastDraw < interval) return;
    // Never print the same state twice (e.g. the last tick and finish() without a new summary).
    const state = `${done}/${total}/${lastNote}`;
    if (plain && state === drawnState) return;
    drawnState = state;
    lastDraw = t;
    const count = `${done}/${total}${unit ? ` ${unit}` : ''}`;
    const note = lastNote ? ` ${lastNote}` : '';
    if (plain) {
      stream.write(`${label}: ${count} (${percent()}%) ${timing(t)}${note}\n`);
      return;
    }
    const width = 24;
    const filled = total > 0 ? Math.round((Math.min(done, total) / total) * width) : width;
    const bar = `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`;
    const line = `${label} [${bar}] ${count} ${percent()}% ${timing(t)}${note}`;
    const columns = stream.columns ?? 100;
    stream.write(`\r${line.slice(0, columns - 1).padEnd(Math.min(columns - 1, line.length))}\x1b[K`);
  };

  return {
    start(newLabel, newTotal, startOptions) {
      label = newLabel;
      unit = startOptions?.unit ?? '';
      total = newTotal;
      done = 0;
      worked = 0;
      lastNote = '';
      drawnState = '';
      finished = false;
      grown = false;
      startedAt = now();
      lastDraw = -Infinity;
      // With nothing known yet (the total grows as work is found) a `0/0` line would say nothing.
      if (total > 0) draw(true);
    },
    tick(count = 1, note) {
      done += count;
      worked += count;
      if (note !== undefined) lastNote = note;
      draw(done >= total && !grown);
    },
    skip(count, note) {
      done += count;
      if (note !== undefined) lastNote = note;
      draw(done >= total && !grown);
    },
    grow(count) {
      total += count;
      grown = true;
    },
    finish(summary) {
      if (summary !== undefined) lastNote = summary;
      finished = true;
      draw(true);
      if (!plain) stream.write('\n');
    },
  };
}

/**
 * A reporter that passes everything on to `progress` and counts what went through it, so a caller
 * that planned `n` items for a piece of work can skip whatever the work did not account for (it was
 * reused, or it failed early) and keep the total closing. `start` and `finish` are the owner's.
 */
export function countingProgress(progress: ProgressReporter): {
  reporter: ProgressReporter;
  counted: { done: number; grown: number };
} {
  const counted = { done: 0, grown: 0 };
  const reporter: ProgressReporter = {
    start: () => {},
    finish: () => {},
    tick(count = 1, note) {
      counted.done += count;
      progress.tick(count, note);
    },
    skip(count, note) {
      counted.done += count;
      progress.skip?.(count, note);
    },
    grow(count) {
      counted.grown += count;
      progress.grow?.(count);
    },
  };
  return { reporter, counted };
}

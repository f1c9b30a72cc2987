/** Progress for long stages: libraries call it, apps choose a live bar, throttled plain lines or silence. */
export interface ProgressReporter {
  start(label: string, total: number, options?: ProgressStartOptions): void;
  /** `count` items of real work done (default 1); `note` replaces the line's note. */
  tick(count?: number, note?: string): void;
  finish(summary?: string): void;
  /** Work discovered while running. */
  grow?(count: number): void;
  /** `count` items done without work (reused, cached): counted, but left out of the ETA's rate. */
  skip?(count: number, note?: string): void;
}

export interface ProgressStartOptions {
  /** Printed after the count: `judge calls`, `batches`, `cases`. */
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
  plainIntervalMs?: number;
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

/** At the rate of real work only, so a resumed run's ETA is not shortened by its reused batches. */
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
  return new ProgressLine(options);
}

interface LineState {
  label: string;
  unit: string;
  total: number;
  done: number;
  note: string;
}

/** `label: 3/10 cases (30%) 4.2s, ETA 9s note`: the line printed in logs and CI. */
export function plainLine(state: LineState, timing: string): string {
  const note = state.note ? ` ${state.note}` : '';
  return `${state.label}: ${countOf(state)} (${percentOf(state)}%) ${timing}${note}`;
}

/** `label [######------] 3/10 cases 30% 4.2s note`: the bar redrawn in place on a terminal. */
export function barLine(state: LineState, timing: string, width = 24): string {
  const filled =
    state.total > 0 ? Math.round((Math.min(state.done, state.total) / state.total) * width) : width;
  const bar = `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`;
  const note = state.note ? ` ${state.note}` : '';
  return `${state.label} [${bar}] ${countOf(state)} ${percentOf(state)}% ${timing}${note}`;
}

const countOf = (state: LineState) => `${state.done}/${state.total}${state.unit ? ` ${state.unit}` : ''}`;
const percentOf = (state: LineState) =>
  state.total > 0 ? Math.floor((Math.min(state.done, state.total) / state.total) * 100) : 100;

class ProgressLine implements ProgressReporter {
  private readonly stream: NonNullable<ProgressOptions['stream']>;
  private readonly plain: boolean;
  private readonly now: () => number;
  private readonly interval: number;
  private state: LineState = { label: '', unit: '', total: 0, done: 0, note: '' };
  private worked = 0;
  private startedAt = 0;
  private lastDraw = -Infinity;
  private drawnState = '';
  private finished = false;
  // Reaching the total is drawn at once, unless the total grows as work is found: then every
  // verification batch would "complete" it again, and finish() draws the end instead.
  private grown = false;

  constructor(options: ProgressOptions) {
    this.stream = options.stream ?? process.stderr;
    this.plain = options.plain ?? (!this.stream.isTTY || Boolean(process.env.CI));
    this.now = options.now ?? Date.now;
    this.interval = this.plain ? (options.plainIntervalMs ?? 5000) : (options.barIntervalMs ?? 100);
  }

  start(label: string, total: number, startOptions?: ProgressStartOptions): void {
    this.state = { label, unit: startOptions?.unit ?? '', total, done: 0, note: '' };
    this.worked = 0;
    this.drawnState = '';
    this.finished = false;
    this.grown = false;
    this.startedAt = this.now();
    this.lastDraw = -Infinity;
    // With nothing known yet (the total grows as work is found) a `0/0` line would say nothing.
    if (total > 0) this.draw(true);
  }

  tick(count = 1, note?: string): void {
    this.worked += count;
    this.skip(count, note);
  }

  skip(count: number, note?: string): void {
    this.state.done += count;
    if (note !== undefined) this.state.note = note;
    this.draw(this.state.done >= this.state.total && !this.grown);
  }

  grow(count: number): void {
    this.state.total += count;
    this.grown = true;
  }

  finish(summary?: string): void {
    if (summary !== undefined) this.state.note = summary;
    this.finished = true;
    this.draw(true);
    if (!this.plain) this.stream.write('\n');
  }

  private timing(t: number): string {
    const elapsedMs = t - this.startedAt;
    const { done, total } = this.state;
    const eta = this.finished
      ? undefined
      : estimateRemainingMs({ elapsedMs, worked: this.worked, done, total });
    return `${(elapsedMs / 1000).toFixed(1)}s${eta === undefined ? '' : `, ETA ${formatDuration(eta)}`}`;
  }

  private draw(force: boolean): void {
    const t = this.now();
    if (!force && t - this.lastDraw < this.interval) return;
    // Never print the same state twice (e.g. the last tick and finish() without a new summary).
    const drawn = `${this.state.done}/${this.state.total}/${this.state.note}`;
    if (this.plain && drawn === this.drawnState) return;
    this.drawnState = drawn;
    this.lastDraw = t;
    if (this.plain) {
      this.stream.write(`${plainLine(this.state, this.timing(t))}\n`);
      return;
    }
    const line = barLine(this.state, this.timing(t));
    const columns = this.stream.columns ?? 100;
    this.stream.write(`\r${line.slice(0, columns - 1).padEnd(Math.min(columns - 1, line.length))}\x1b[K`);
  }
}

/** Passes ticks on and counts them, so a caller can skip what the work did not account for. */
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

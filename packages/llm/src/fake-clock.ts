import type { Clock } from './clock';

interface Timer {
  id: number;
  due: number;
  fn: () => void;
}

/**
 * A clock for tests: time moves only when the test advances it, and timers due by then run in
 * the order they are due (ties in the order they were set).
 */
export class FakeClock implements Clock {
  private time: number;
  private sequence = 0;
  private readonly timers = new Map<number, Timer>();

  constructor(start = Date.parse('2026-01-01T00:00:00Z')) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): number {
    this.sequence += 1;
    this.timers.set(this.sequence, { id: this.sequence, due: this.time + Math.max(0, ms), fn });
    return this.sequence;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Timers set and not yet run or cleared. */
  get pending(): number {
    return this.timers.size;
  }

  /** When the next timer is due, if any. */
  get nextDue(): number | undefined {
    return this.next()?.due;
  }

  /** Moves time forward by `ms`, running every timer due on the way (timers they set included). */
  advance(ms: number): void {
    const until = this.time + ms;
    for (let timer = this.next(); timer && timer.due <= until; timer = this.next()) {
      this.timers.delete(timer.id);
      this.time = timer.due;
      timer.fn();
    }
    this.time = until;
  }

  /** Runs the next timer, moving time to when it is due; false when none is set. */
  runNext(): boolean {
    const timer = this.next();
    if (!timer) return false;
    this.advance(timer.due - this.time);
    return true;
  }

  /**
   * For tests whose I/O is real (the fake HTTP server): runs the next timer each time `realMs` of
   * real time pass, so waits of minutes take milliseconds. Returns the function that stops it.
   */
  autoAdvance(realMs = 5): () => void {
    const handle = setInterval(() => this.runNext(), realMs);
    return () => clearInterval(handle);
  }

  private next(): Timer | undefined {
    let first: Timer | undefined;
    for (const timer of this.timers.values())
      if (!first || timer.due < first.due || (timer.due === first.due && timer.id < first.id)) first = timer;
    return first;
  }
}

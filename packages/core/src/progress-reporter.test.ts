import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  barLine,
  countingProgress,
  createProgressReporter,
  estimateRemainingMs,
  formatDuration,
  plainLine,
} from './progress-reporter';

function capture(isTTY: boolean) {
  const chunks: string[] = [];
  const stream = Object.assign(
    new Writable({
      write(chunk, _enc, done) {
        chunks.push(String(chunk));
        done();
      },
    }),
    { isTTY, columns: 80 },
  );
  return { stream, text: () => chunks.join('') };
}

describe('progress reporter', () => {
  it('prints throttled plain lines when not a terminal', () => {
    let now = 0;
    const out = capture(false);
    const progress = createProgressReporter({
      stream: out.stream,
      plain: true,
      plainIntervalMs: 1000,
      now: () => now,
    });
    progress.start('probes', 100);
    for (let i = 0; i < 99; i++) {
      now += 20;
      progress.tick();
    }
    now += 20;
    progress.tick();
    progress.finish('done');
    const lines = out.text().trim().split('\n');
    // start, one line per elapsed second (~2), the completion and the finish: never one per tick.
    expect(lines.length).toBeLessThanOrEqual(6);
    expect(lines[0]).toContain('probes: 0/100');
    expect(lines.at(-1)).toContain('100/100 (100%)');
    expect(out.text()).not.toContain('\r');
  });

  it('does not repeat the final line when finish adds nothing new', () => {
    const out = capture(false);
    const progress = createProgressReporter({ stream: out.stream, plain: true, now: () => 0 });
    progress.start('weights', 2);
    progress.tick();
    progress.tick();
    progress.finish();
    const lines = out.text().trim().split('\n');
    expect(lines.filter((line) => line.startsWith('weights: 2/2'))).toHaveLength(1);
  });

  it('redraws one bar in place on a terminal', () => {
    let now = 0;
    const out = capture(true);
    const progress = createProgressReporter({ stream: out.stream, plain: false, now: () => now });
    progress.start('eval', 4);
    for (let i = 0; i < 4; i++) {
      now += 200;
      progress.tick();
    }
    progress.finish();
    expect(out.text()).toContain('\r');
    expect(out.text()).toContain('[########################] 4/4 100%');
    expect(out.text().endsWith('\n')).toBe(true);
  });
});

/** Plain lines on every change, on a clock the test moves. */
function unthrottled(clock: { now: number }) {
  const out = capture(false);
  const progress = createProgressReporter({
    stream: out.stream,
    plain: true,
    plainIntervalMs: 0,
    now: () => clock.now,
  });
  return { out, progress };
}

describe('progress at the judged unit, with an ETA', () => {
  it('names the unit and estimates the time left from the rate of real work', () => {
    const clock = { now: 0 };
    const { out, progress } = unthrottled(clock);
    progress.start('evaluate', 10, { unit: 'judge calls' });
    clock.now += 2000;
    progress.tick(2, 'case_a');
    const lines = out.text().trim().split('\n');
    expect(lines[0]).toBe('evaluate: 0/10 judge calls (0%) 0.0s');
    // 2 calls in 2 s, 8 left: 8 s.
    expect(lines[1]).toBe('evaluate: 2/10 judge calls (20%) 2.0s, ETA 8s case_a');
  });

  it('keeps skipped (reused) items out of the rate and grows the total as work is found', () => {
    const clock = { now: 0 };
    const { out, progress } = unthrottled(clock);
    progress.start('weights', 4, { unit: 'batches' });
    progress.skip?.(2, 'reused');
    clock.now += 1000;
    progress.tick(1);
    progress.grow?.(5);
    clock.now += 1000;
    progress.tick(1);
    const lines = out.text().trim().split('\n');
    expect(lines[1]).toBe('weights: 2/4 batches (50%) 0.0s reused');
    // 1 real batch in 1 s (the 2 reused ones took no time): 1 left → 1 s.
    expect(lines[2]).toBe('weights: 3/4 batches (75%) 1.0s, ETA 1s reused');
    // the total grew to 9: 2 real batches in 2 s, 5 left → 5 s.
    expect(lines[3]).toBe('weights: 4/9 batches (44%) 2.0s, ETA 5s reused');
    progress.finish('done');
    // the last line makes no promise about time left
    expect(out.text().trim().split('\n').at(-1)).toBe('weights: 4/9 batches (44%) 2.0s done');
  });

  it('prints nothing for a total of 0 until work is found', () => {
    const out = capture(false);
    const progress = createProgressReporter({
      stream: out.stream,
      plain: true,
      plainIntervalMs: 0,
      now: () => 0,
    });
    progress.start('probes', 0, { unit: 'generation calls' });
    expect(out.text()).toBe('');
    progress.grow?.(3);
    progress.tick(1, 'case_a');
    expect(out.text()).toBe('probes: 1/3 generation calls (33%) 0.0s, ETA 0s case_a\n');
  });

  it('does not print a line each time a growing total is reached again', () => {
    const out = capture(false);
    const progress = createProgressReporter({ stream: out.stream, plain: true, now: () => 0 });
    progress.start('evaluate', 2, { unit: 'judge calls' });
    progress.tick(2);
    for (let i = 0; i < 5; i++) {
      progress.grow?.(1);
      progress.tick(1);
    }
    progress.finish('done');
    expect(out.text().trim().split('\n')).toEqual([
      'evaluate: 0/2 judge calls (0%) 0.0s',
      'evaluate: 2/2 judge calls (100%) 0.0s',
      'evaluate: 7/7 judge calls (100%) 0.0s done',
    ]);
  });

  it('formats long ETAs in minutes and hours', () => {
    expect(formatDuration(42_000)).toBe('42s');
    expect(formatDuration(185_000)).toBe('3m05s');
    expect(formatDuration(3_720_000)).toBe('1h02m');
    expect(estimateRemainingMs({ elapsedMs: 1000, worked: 0, done: 3, total: 5 })).toBeUndefined();
    expect(estimateRemainingMs({ elapsedMs: 1000, worked: 2, done: 5, total: 5 })).toBeUndefined();
  });

  it('keeps the old two-argument API working', () => {
    const out = capture(false);
    const progress = createProgressReporter({ stream: out.stream, plain: true, now: () => 0 });
    progress.start('probes', 2);
    progress.tick(2);
    expect(out.text()).toContain('probes: 2/2 (100%) 0.0s');
  });
});

describe('countingProgress', () => {
  it('passes ticks, skips and growth on and counts them, so a caller can close its plan', () => {
    const out = capture(false);
    const owner = createProgressReporter({
      stream: out.stream,
      plain: true,
      plainIntervalMs: 0,
      now: () => 0,
    });
    owner.start('evaluate', 5, { unit: 'judge calls' });
    const { reporter, counted } = countingProgress(owner);
    reporter.tick(2);
    reporter.grow?.(1);
    reporter.skip?.(1);
    reporter.finish();
    expect(counted).toEqual({ done: 3, grown: 1 });
    // the planned 5 + 1 grown, 3 accounted for: the caller skips the other 3
    owner.skip?.(5 + counted.grown - counted.done, 'reused');
    expect(out.text().trim().split('\n').at(-1)).toBe('evaluate: 6/6 judge calls (100%) 0.0s reused');
  });
});

describe('progress lines', () => {
  const state = { label: 'evaluate', unit: 'judge calls', total: 8, done: 2, note: 'deck a' };
  it('plain: label, count with unit, floor percent, timing, note', () => {
    expect(plainLine(state, '1.0s')).toBe('evaluate: 2/8 judge calls (25%) 1.0s deck a');
    expect(plainLine({ ...state, unit: '', note: '', total: 0, done: 0 }, '0.0s')).toBe(
      'evaluate: 0/0 (100%) 0.0s',
    );
  });
  it('bar: filled in proportion, capped at the total', () => {
    expect(barLine(state, '1.0s', 8)).toBe('evaluate [##------] 2/8 judge calls 25% 1.0s deck a');
    expect(barLine({ ...state, done: 9 }, '1.0s', 8)).toBe(
      'evaluate [########] 9/8 judge calls 100% 1.0s deck a',
    );
  });
});

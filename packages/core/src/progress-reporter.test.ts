import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgressReporter, formatDuration } from './progress-reporter';

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

  it('shows the remaining time at the pace so far, and none once done', () => {
    let now = 0;
    const out = capture(false);
    const progress = createProgressReporter({
      stream: out.stream,
      plain: true,
      plainIntervalMs: 0,
      now: () => now,
    });
    progress.start('rubric', 4);
    now = 30_000;
    progress.tick();
    now = 60_000;
    progress.tick(3);
    progress.finish();
    const lines = out.text().trim().split('\n');
    expect(lines[1]).toBe('rubric: 1/4 (25%) 30.0s ETA 1m30s');
    expect(lines.at(-1)).toBe('rubric: 4/4 (100%) 60.0s');
    expect(formatDuration(7_500_000)).toBe('2h05m');
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

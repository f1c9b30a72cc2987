import { describe, expect, it } from 'vitest';
import { mapWithConcurrency } from './map-with-concurrency';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('mapWithConcurrency', () => {
  it('keeps item order and never runs more than the limit at once', async () => {
    let running = 0;
    let peak = 0;
    const results = await mapWithConcurrency([30, 5, 20, 1, 10, 2], 3, async (ms, index) => {
      running += 1;
      peak = Math.max(peak, running);
      await sleep(ms);
      running -= 1;
      return `${index}:${ms}`;
    });
    expect(results).toEqual(['0:30', '1:5', '2:20', '3:1', '4:10', '5:2']);
    expect(peak).toBe(3);
  });

  it('starts nothing new after a failure, lets running items finish, then throws the first error', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const run = mapWithConcurrency([0, 1, 2, 3, 4, 5], 2, async (item) => {
      started.push(item);
      if (item === 1) throw new Error('item 1 failed');
      await sleep(20);
      finished.push(item);
      return item;
    });
    await expect(run).rejects.toThrow('item 1 failed');
    expect(started).toEqual([0, 1]);
    expect(finished).toEqual([0]);
  });

  it('handles an empty list', async () => {
    expect(await mapWithConcurrency([], 4, async () => 1)).toEqual([]);
  });
});

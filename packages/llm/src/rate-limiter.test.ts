import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limiter';

describe('RateLimiter', () => {
  it('makes a call wait for the tokens-per-minute budget to refill', async () => {
    // 60,000 tokens/min = 1,000 tokens/s: after a full-budget call, 500 more tokens take ~0.5 s.
    const limiter = new RateLimiter(4, undefined, 60_000);
    (await limiter.acquire(60_000))();
    const started = Date.now();
    (await limiter.acquire(500))();
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
  });

  it('lets a request larger than the whole budget through once the bucket is full', async () => {
    const limiter = new RateLimiter(1, undefined, 1_000);
    const started = Date.now();
    (await limiter.acquire(50_000))();
    expect(Date.now() - started).toBeLessThan(100);
  });

  it('holds every caller back during a pause set by a rate-limit answer', async () => {
    const limiter = new RateLimiter(4);
    limiter.pauseUntil(Date.now() + 300);
    const started = Date.now();
    await Promise.all([limiter.acquire(1), limiter.acquire(1)].map(async (slot) => (await slot)()));
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('hands a released slot to the next waiter', async () => {
    const limiter = new RateLimiter(1);
    const order: string[] = [];
    const releaseFirst = await limiter.acquire(1);
    const second = limiter.acquire(1).then((release) => {
      order.push('second');
      release();
    });
    order.push('first done');
    releaseFirst();
    releaseFirst();
    await second;
    expect(order).toEqual(['first done', 'second']);
  });
});

describe('RateLimiter aborts', () => {
  it('an aborted waiter leaves the queue and the slot goes to the next one', async () => {
    const limiter = new RateLimiter(1);
    const release = await limiter.acquire(1);
    const controller = new AbortController();
    const aborted = limiter.acquire(1, controller.signal);
    const next = limiter.acquire(1);
    controller.abort(new Error('cancelled'));
    await expect(aborted).rejects.toThrow('cancelled');
    release();
    const releaseNext = await next;
    releaseNext();
    const again = await limiter.acquire(1);
    again();
  });
});

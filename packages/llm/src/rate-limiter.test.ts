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

describe('RateLimiter adaptive concurrency', () => {
  it('halves the limit on an overloaded answer, once per wave, and grows it back by one per limit answers', async () => {
    const limiter = new RateLimiter(8);
    const wave = await Promise.all(Array.from({ length: 8 }, () => limiter.acquire(1)));
    // Eight calls of one wave all come back overloaded: one halving, not three.
    for (const release of wave) release({ kind: 'overloaded' });
    expect(limiter.snapshot()).toMatchObject({ concurrencyLimit: 4, decreases: 1 });
    const next = await Promise.all(Array.from({ length: 4 }, () => limiter.acquire(1)));
    let fifthAdmitted = false;
    const fifth = limiter.acquire(1).then((release) => {
      fifthAdmitted = true;
      return release;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fifthAdmitted).toBe(false);
    for (const release of next) release({ kind: 'answered', tokens: 1 });
    // Four answers in a row at limit 4: the limit is 5 again.
    expect(limiter.snapshot().concurrencyLimit).toBe(5);
    (await fifth)({ kind: 'overloaded' });
    expect(limiter.snapshot()).toMatchObject({ concurrencyLimit: 2, decreases: 2 });
    const floor = new RateLimiter(1);
    (await floor.acquire(1))({ kind: 'rate_limited' });
    expect(floor.snapshot().concurrencyLimit).toBe(1);
  });

  it('a 429 empties the request bucket, so the next call waits for refill instead of bursting', async () => {
    // 600 requests/min = one every 100 ms; the bucket starts with a whole minute's worth.
    const limiter = new RateLimiter(8, 600);
    (await limiter.acquire(1))();
    let started = Date.now();
    (await limiter.acquire(1))();
    expect(Date.now() - started).toBeLessThan(50);
    (await limiter.acquire(1))({ kind: 'rate_limited' });
    started = Date.now();
    (await limiter.acquire(1))();
    expect(Date.now() - started).toBeGreaterThanOrEqual(80);
  });

  it('gives back the unused part of a token estimate, and waiters get it at once', async () => {
    const limiter = new RateLimiter(4, undefined, 6_000);
    const big = await limiter.acquire(6_000);
    const started = Date.now();
    const waiting = limiter.acquire(500);
    setTimeout(() => big({ kind: 'answered', tokens: 100 }), 50);
    (await waiting)();
    const waited = Date.now() - started;
    // Without the refund 500 tokens take 5 s of refill at 100 tokens/s.
    expect(waited).toBeGreaterThanOrEqual(40);
    expect(waited).toBeLessThan(1_000);
  });
});

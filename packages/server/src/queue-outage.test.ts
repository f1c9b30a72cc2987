import { fixtureDeck, type RedisServer, redisServerUnavailable, startRedisServer } from '@xsb/jobs/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { bodyOf, deckForm, startTestApi, type TestApi, waitForJob } from './testing-api';

const missing = redisServerUnavailable();
if (missing && process.env.CI === 'true')
  throw new Error(`the queue-outage test is mandatory under CI=true: ${missing}`);

let api: TestApi | undefined;
let redis: RedisServer | undefined;
afterEach(async () => {
  await api?.stop();
  await redis?.stop();
  api = undefined;
  redis = undefined;
});

/** The response and how long it took, in ms. */
async function timed(request: () => Promise<Response>): Promise<{ response: Response; ms: number }> {
  const started = performance.now();
  const response = await request();
  return { response, ms: performance.now() - started };
}

describe.skipIf(Boolean(missing))(
  `xsb serve while its Redis queue is away (${missing ?? 'redis-server found'})`,
  () => {
    it('answers 503 at once (Retry-After on POST), accepts nothing late, and recovers when Redis returns', async () => {
      redis = await startRedisServer();
      const port = Number(new URL(redis.url).port);
      api = await startTestApi({ queue: redis.url, workers: 1 });
      const before = await api.call('/v1/evaluations', {
        method: 'POST',
        body: deckForm(fixtureDeck('before'), { case: 'pilot', system: 'gen' }),
      });
      expect(before.status).toBe(202);
      const kept = (await bodyOf(before)).job_id as string;
      expect((await waitForJob(api, kept)).status).toBe('done');

      await redis.stop();
      const target = api;
      const ready = await timed(() => target.call('/readyz', { token: null }));
      expect(ready.response.status).toBe(503);
      expect(ready.ms).toBeLessThan(2000);
      expect((await bodyOf(ready.response)).error.code).toBe('not_ready');

      const post = await timed(() =>
        target.call('/v1/evaluations', {
          method: 'POST',
          body: deckForm(fixtureDeck('during'), { case: 'pilot', system: 'gen-outage' }),
        }),
      );
      expect(post.response.status).toBe(503);
      expect(post.ms).toBeLessThan(5000);
      expect(post.response.headers.get('retry-after')).toMatch(/^\d+$/);
      const refusal = await bodyOf(post.response);
      expect(refusal.error).toMatchObject({ code: 'queue_unavailable', request_id: expect.any(String) });
      for (const path of ['/v1/jobs', `/v1/jobs/${kept}`]) {
        const read = await timed(() => target.call(path));
        expect(read.response.status, path).toBe(503);
        expect(read.ms, path).toBeLessThan(5000);
      }

      redis = await startRedisServer({ port });
      // The queue lost its data with Redis (nothing persisted here): what matters is that it answers
      // again, and that the request refused during the outage never becomes a job.
      await expect
        .poll(async () => (await target.call('/readyz', { token: null })).status, {
          timeout: 15_000,
          interval: 100,
        })
        .toBe(200);
      const listed = await bodyOf(await target.call('/v1/jobs'));
      expect(listed.jobs.map((job: { request: { system: string } }) => job.request.system)).not.toContain(
        'gen-outage',
      );
      const after = await target.call('/v1/evaluations', {
        method: 'POST',
        body: deckForm(fixtureDeck('after'), { case: 'pilot', system: 'gen-after' }),
      });
      expect(after.status).toBe(202);
      expect((await waitForJob(target, (await bodyOf(after)).job_id)).status).toBe('done');
    }, 90_000);
  },
);

import type { Server } from 'node:http';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { executeWorkList, InputError, type StageEvent, type WorkUnit } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { JobEvents, type JobHandler, SqliteJobStore, startJobRunner } from '@xsb/jobs';
import { enqueueInput } from '@xsb/jobs/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp } from './create-api-app';

/** The server-sent events of a stream as `{event, data}`, read until the server closes it. */
async function readEvents(response: Response): Promise<Array<{ event: string; data: unknown }>> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const field = (name: string) =>
        block
          .split('\n')
          .filter((line) => line.startsWith(`${name}:`))
          .map((line) => line.slice(name.length + 1).trimStart())
          .join('\n');
      return { event: field('event'), data: JSON.parse(field('data')) as unknown };
    });
}

const units: Array<WorkUnit<string, { fails: boolean }>> = ['a', 'b', 'c'].map((id) => ({
  stage: 'eval.answerability',
  id,
  reads: [],
  reuseKey: id,
  decision:
    id === 'a'
      ? { kind: 'reuse', artifact: `${id}.json` }
      : { kind: 'call', requests: [id], outputTokens: 5 },
  input: { fails: id === 'c' },
}));

describe("a job's stage events", () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let store: SqliteJobStore;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    temp = await makeTempDir('xsb-stage-events-');
    store = new SqliteJobStore(join(temp.dir, 'jobs.sqlite'));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    await store.close();
    await temp.cleanup();
  });

  it('reach the SSE stream (real HTTP) exactly as a library listener saw them, before `end`', async () => {
    const events = new JobEvents();
    const app = createApiApp({
      dataDir: temp.dir,
      store,
      tokens: [],
      insecureLocal: true,
      env: {},
      tmpDir: join(temp.dir, 'tmp'),
      eventsIntervalMs: 20,
      events,
    });
    server = await new Promise<Server>((resolve) => {
      const started = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () =>
        resolve(started as Server),
      ) as Server;
    });
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

    // The job's work waits until the stream is open, so the stream meets every event.
    let open!: () => void;
    const streamOpen = new Promise<void>((resolve) => {
      open = resolve;
    });
    const handler: JobHandler = async (_job, context) => {
      await streamOpen;
      await executeWorkList(units, {
        unitName: 'probes',
        onEvent: context.onEvent,
        run: async (unit, unitContext) => {
          if (unit.input.fails) throw new InputError('not a PDF', { file: `${unit.id}.pdf` });
          if (unit.decision.kind === 'call')
            unitContext.callMade({
              inputTokens: 10,
              outputTokens: 5,
              cacheReadTokens: 0,
              cacheWriteTokens: 0,
            });
          return unit.id;
        },
      });
      return { ok: true };
    };
    const seen: StageEvent[] = [];
    const runner = startJobRunner({
      store,
      concurrency: 1,
      heartbeatMs: 50,
      handlers: { evaluation: handler, rubric_evaluation: handler },
      onEvent: (jobId, event) => {
        seen.push(event);
        events.publish(jobId, event);
      },
    });
    const { job } = await store.enqueue(enqueueInput());
    const response = await fetch(`${url}/v1/jobs/${job.id}/events`);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reading = readEvents(response);
    // The route subscribes before it answers; the stream is open once its headers arrived.
    open();
    const streamed = await reading;
    await runner.drain(1000);

    expect(seen.map((event) => event.type)).toEqual([
      'stage-started',
      'unit-done',
      'call-made',
      'unit-done',
      'unit-failed',
      'stage-finished',
    ]);
    expect(streamed.filter((e) => e.event === 'stage').map((e) => e.data)).toEqual(seen);
    // The events a client already read keep their names and places: `job` snapshots, `end` last.
    expect(streamed.at(-1)).toEqual({ event: 'end', data: { status: 'done' } });
    expect(streamed.some((e) => e.event === 'job')).toBe(true);
    const lastStage = streamed.map((e) => e.event).lastIndexOf('stage');
    expect(lastStage).toBeLessThan(streamed.length - 1);
  }, 30_000);
});

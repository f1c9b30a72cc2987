import { describe, expect, it } from 'vitest';
import {
  type BatchPhase,
  type Collector,
  EMPTY_COLLECTOR,
  ENVELOPE_BYTES,
  type MachineEvent,
  type MachineSettings,
  type NoAnswer,
  type RequestState,
  type Slice,
  transition,
} from './batch-state-machine';
import type { CompletionResult } from './completion-types';

const SETTINGS: MachineSettings = {
  fallback: 'resubmit',
  maxRounds: 2,
  maxRequestsPerBatch: 3,
  maxBytesPerBatch: ENVELOPE_BYTES + 100,
  maxRequestBytes: ENVELOPE_BYTES + 150,
  idleMs: 2_000,
  maxCollectMs: 60_000,
  pollIntervalMs: 2_000,
  maxPollIntervalMs: 10_000,
  deadlineMs: 30_000,
  cancelGraceMs: 5_000,
};
const ONLINE: MachineSettings = { ...SETTINGS, fallback: 'online' };
const RESULT = { text: 'ok' } as CompletionResult;
const EXPIRED: NoAnswer = { code: 'batch_expired', detail: 'expired', resubmit: true, online: true };
const REFUSED: NoAnswer = { code: 'bad_request', detail: 'refused', resubmit: false, online: false };

const slice = (
  request?: RequestState,
  batch?: BatchPhase,
  collector: Collector = EMPTY_COLLECTOR,
): Slice => ({
  collector,
  request,
  batch,
});
const routing = (waiters = 1, rounds = 0): RequestState => ({ kind: 'routing', waiters, rounds });
const inBatch = (waiters = 1, rounds = 1): RequestState => ({
  kind: 'in-batch',
  waiters,
  rounds,
  localId: 'b1',
});
const polling: BatchPhase = { kind: 'polling', batchId: 'msgbatch_1', submittedAt: 0, interval: 2_000 };

/** Queues requests one after another (each its own slice), returning the last step and the collector. */
function queueAll(sizes: Array<[string, number]>, settings = SETTINGS, start: Collector = EMPTY_COLLECTOR) {
  let collector = start;
  const steps = sizes.map(([model, bytes], i) => {
    const step = transition(settings, slice(routing(), undefined, collector), {
      type: 'queue',
      id: `r${i}`,
      model,
      bytes,
    });
    collector = step.collector;
    return step;
  });
  return { steps, collector };
}

describe('requests', () => {
  it('a first caller creates the request and routes it; later callers only join', () => {
    const first = transition(SETTINGS, slice(), { type: 'arrive', id: 'r' });
    expect(first.request).toEqual(routing());
    expect(first.effects).toEqual([{ type: 'route', id: 'r' }]);
    const second = transition(SETTINGS, slice(first.request), { type: 'arrive', id: 'r' });
    expect(second.request).toEqual(routing(2));
    expect(second.effects).toEqual([]);
  });

  it('queueing opens a chunk, starts the idle and collect timers; a later one restarts only the idle timer', () => {
    const { steps, collector } = queueAll([
      ['m', 10],
      ['m', 10],
    ]);
    expect(steps[0]?.request).toMatchObject({ kind: 'queued', chunk: 1, model: 'm', bytes: 10 });
    expect(steps[0]?.effects).toEqual([
      { type: 'set-timer', timer: 'idle', ms: 2_000 },
      { type: 'set-timer', timer: 'collect', ms: 60_000 },
    ]);
    expect(steps[1]?.effects).toEqual([{ type: 'set-timer', timer: 'idle', ms: 2_000 }]);
    expect(collector.open).toEqual({ m: { chunk: 1, count: 2, bytes: 20 } });
  });

  it('a chunk that reaches the request limit is submitted at once, and the timers stop', () => {
    const { steps, collector } = queueAll([
      ['m', 10],
      ['m', 10],
      ['m', 10],
    ]);
    expect(steps[2]?.effects).toEqual([
      { type: 'submit', chunk: 1 },
      { type: 'clear-timer', timer: 'idle' },
      { type: 'clear-timer', timer: 'collect' },
    ]);
    expect(collector).toMatchObject({ open: {}, submitting: 1, idleTimer: false, collectTimer: false });
  });

  it('a request that does not fit closes the chunk before it; one at the byte limit goes alone', () => {
    const { steps, collector } = queueAll([
      ['m', 60],
      ['m', 60],
      ['m', 120],
    ]);
    expect(steps[1]?.request).toMatchObject({ chunk: 2 });
    expect(steps[1]?.effects[0]).toEqual({ type: 'submit', chunk: 1 });
    // Chunk 2 closes for the 120-byte request, which fills chunk 3 by itself: both wait their turn.
    expect(steps[2]?.request).toMatchObject({ chunk: 3 });
    expect(collector).toMatchObject({ open: {}, submitting: 1, closed: [2, 3] });
  });

  it('requests of different models never share a chunk', () => {
    const { collector } = queueAll([
      ['a', 10],
      ['b', 10],
      ['a', 10],
    ]);
    expect(collector.open).toEqual({
      a: { chunk: 1, count: 2, bytes: 20 },
      b: { chunk: 2, count: 1, bytes: 10 },
    });
  });

  it('a request larger than a batch may hold fails (too_large), or goes online with the online fallback', () => {
    const event: MachineEvent = { type: 'queue', id: 'r', model: 'm', bytes: 151 };
    const failed = transition(SETTINGS, slice(routing()), event);
    expect(failed.request).toBeUndefined();
    expect(failed.effects).toEqual([
      {
        type: 'fail',
        id: 'r',
        why: expect.objectContaining({ code: 'too_large' }),
        batchId: undefined,
        rounds: 0,
      },
    ]);
    const online = transition(ONLINE, slice(routing()), event);
    expect(online.request).toEqual({ kind: 'online', waiters: 1, rounds: 0 });
    expect(online.effects.map((effect) => effect.type)).toEqual(['emit', 'online']);
  });

  it('a caller leaving: the last one takes a queued request out of its chunk; a batched one stays', () => {
    const { collector, steps } = queueAll([['m', 10]]);
    const left = transition(SETTINGS, slice(steps[0]?.request, undefined, collector), {
      type: 'leave',
      id: 'r0',
    });
    expect(left.request).toBeUndefined();
    expect(left.collector.open).toEqual({});
    expect(left.effects).toEqual([
      { type: 'drop', id: 'r0' },
      { type: 'clear-timer', timer: 'idle' },
      { type: 'clear-timer', timer: 'collect' },
    ]);
    expect(transition(SETTINGS, slice(routing(2)), { type: 'leave', id: 'r' }).request).toEqual(routing(1));
    const batched = transition(SETTINGS, slice(inBatch()), { type: 'leave', id: 'r' });
    expect(batched.request).toEqual(inBatch(0));
    expect(batched.effects).toEqual([]);
  });

  it('entering a new batch spends a round; attaching to an unknown open batch resumes it once', () => {
    const queued: RequestState = { kind: 'queued', waiters: 1, rounds: 0, chunk: 1, model: 'm', bytes: 10 };
    const entered = transition(SETTINGS, slice(queued, { kind: 'creating' }), {
      type: 'enter',
      id: 'r',
      localId: 'b1',
    });
    expect(entered.request).toEqual(inBatch(1, 1));
    const attached = transition(SETTINGS, slice(routing()), { type: 'attach', id: 'r', localId: 'b1' });
    expect(attached.request).toEqual(inBatch(1, 0));
    expect(attached.batch).toEqual({ kind: 'resuming' });
    expect(attached.effects).toEqual([{ type: 'resume', localId: 'b1' }]);
    const known = transition(SETTINGS, slice(routing(), polling), { type: 'attach', id: 'r', localId: 'b1' });
    expect(known.effects).toEqual([]);
    expect(known.batch).toBe(polling);
  });

  it('no answer: resubmitted while rounds remain, then failed; never resubmitted when it cannot help', () => {
    const again = transition(SETTINGS, slice(inBatch(1, 1)), { type: 'no-answer', id: 'r', why: EXPIRED });
    expect(again.request).toEqual(routing(1, 1));
    expect(again.effects).toEqual([{ type: 'render', id: 'r' }]);
    const last = transition(SETTINGS, slice(inBatch(1, 2)), {
      type: 'no-answer',
      id: 'r',
      why: EXPIRED,
      batchId: 'x',
    });
    expect(last.request).toBeUndefined();
    expect(last.effects).toEqual([{ type: 'fail', id: 'r', why: EXPIRED, batchId: 'x', rounds: 2 }]);
    const refused = transition(ONLINE, slice(inBatch(1, 1)), { type: 'no-answer', id: 'r', why: REFUSED });
    expect(refused.effects.map((effect) => effect.type)).toEqual(['fail']);
    const nobody = transition(SETTINGS, slice(inBatch(0, 1)), { type: 'no-answer', id: 'r', why: EXPIRED });
    expect(nobody.effects).toEqual([{ type: 'drop', id: 'r' }]);
  });

  it('requeue gives the round back; reroute looks in the state files again', () => {
    const requeued = transition(SETTINGS, slice(inBatch(1, 2)), { type: 'requeue', id: 'r' });
    expect(requeued.request).toEqual(routing(1, 1));
    expect(requeued.effects).toEqual([{ type: 'render', id: 'r' }]);
    const rerouted = transition(SETTINGS, slice(inBatch(1, 2)), { type: 'reroute', id: 'r' });
    expect(rerouted.request).toEqual(routing(1, 2));
    expect(rerouted.effects).toEqual([{ type: 'route', id: 'r' }]);
  });

  it('an answer or an error settles the request; events for a request that is gone change nothing', () => {
    const answered = transition(SETTINGS, slice(inBatch()), { type: 'answer', id: 'r', result: RESULT });
    expect(answered.request).toBeUndefined();
    expect(answered.effects).toEqual([{ type: 'resolve', id: 'r', result: RESULT }]);
    const gone = transition(SETTINGS, slice(), { type: 'answer', id: 'r', result: RESULT });
    expect(gone).toEqual({ ...slice(), effects: [] });
  });
});

describe('collector', () => {
  const collecting = queueAll([['m', 10]]).collector;

  it('the idle timer submits what is collected, unless results are being handed out', () => {
    const flushed = transition(SETTINGS, slice(undefined, undefined, collecting), { type: 'idle-timer' });
    expect(flushed.effects).toEqual([
      { type: 'submit', chunk: 1 },
      { type: 'clear-timer', timer: 'collect' },
    ]);
    const busy = { ...collecting, delivering: 1 };
    const held = transition(SETTINGS, slice(undefined, undefined, busy), { type: 'idle-timer' });
    expect(held.effects).toEqual([{ type: 'set-timer', timer: 'idle', ms: 2_000 }]);
    expect(held.collector.open).toEqual(busy.open);
  });

  it('the collect timer and flush submit even while results are handed out', () => {
    const busy = { ...collecting, delivering: 1 };
    for (const event of [{ type: 'collect-timer' }, { type: 'flush' }] as MachineEvent[])
      expect(transition(SETTINGS, slice(undefined, undefined, busy), event).effects[0]).toEqual({
        type: 'submit',
        chunk: 1,
      });
  });

  it('one submission at a time: the next closed chunk goes when the one before ends', () => {
    const waiting = { ...EMPTY_COLLECTOR, submitting: 1, closed: [2, 3] };
    const next = transition(SETTINGS, slice(undefined, undefined, waiting), {
      type: 'submission-ended',
      chunk: 1,
    });
    expect(next.effects).toEqual([{ type: 'submit', chunk: 2 }]);
    expect(next.collector).toMatchObject({ submitting: 2, closed: [3] });
    const stale = transition(SETTINGS, slice(undefined, undefined, waiting), {
      type: 'submission-ended',
      chunk: 7,
    });
    expect(stale.effects).toEqual([]);
  });
});

describe('batches', () => {
  it('created: polled after the first interval', () => {
    const step = transition(SETTINGS, slice(undefined, { kind: 'creating' }), {
      type: 'created',
      localId: 'b1',
      batchId: 'msgbatch_1',
      at: 5,
    });
    expect(step.batch).toEqual({ kind: 'polling', batchId: 'msgbatch_1', submittedAt: 5, interval: 2_000 });
    expect(step.effects).toEqual([{ type: 'set-timer', timer: 'poll:b1', ms: 2_000 }]);
    expect(
      transition(SETTINGS, slice(undefined, step.batch), { type: 'poll-timer', localId: 'b1' }).effects,
    ).toEqual([{ type: 'poll', localId: 'b1', batchId: 'msgbatch_1' }]);
  });

  it('a running batch is polled after twice the wait, up to the maximum', () => {
    let batch: BatchPhase | undefined = polling;
    const waits: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const step = transition(SETTINGS, slice(undefined, batch), {
        type: 'polled',
        localId: 'b1',
        progress: { state: 'running', providerStatus: 'in_progress' },
        at: 1_000,
      });
      batch = step.batch;
      waits.push(...step.effects.flatMap((effect) => (effect.type === 'set-timer' ? [effect.ms] : [])));
    }
    expect(waits).toEqual([4_000, 8_000, 10_000, 10_000]);
  });

  it('an ended batch is collected, holding the idle flush until its results are handed out', () => {
    const progress = { state: 'ended', providerStatus: 'ended' } as const;
    const step = transition(SETTINGS, slice(undefined, polling), {
      type: 'polled',
      localId: 'b1',
      progress,
      at: 1,
    });
    expect(step.batch).toEqual({ kind: 'collecting', batchId: 'msgbatch_1' });
    expect(step.collector.delivering).toBe(1);
    expect(step.effects.map((effect) => effect.type)).toEqual(['emit', 'collect']);
    const done = transition(SETTINGS, slice(undefined, step.batch, step.collector), {
      type: 'collected',
      localId: 'b1',
    });
    expect(done.batch).toBeUndefined();
    expect(done.collector.delivering).toBe(0);
  });

  it('past its deadline a batch is canceled; still running after the grace, its requests are given up', () => {
    const running = { state: 'running', providerStatus: 'in_progress' } as const;
    const late = transition(SETTINGS, slice(undefined, polling), {
      type: 'polled',
      localId: 'b1',
      progress: running,
      at: 30_001,
    });
    expect(late.effects.map((effect) => effect.type)).toEqual(['emit', 'cancel', 'emit', 'set-timer']);
    expect(late.batch).toMatchObject({ canceledAt: 30_001 });
    const waiting = transition(SETTINGS, slice(undefined, late.batch), {
      type: 'polled',
      localId: 'b1',
      progress: running,
      at: 35_001,
    });
    expect(waiting.effects.map((effect) => effect.type)).toEqual(['emit', 'set-timer']);
    const given = transition(SETTINGS, slice(undefined, waiting.batch), {
      type: 'polled',
      localId: 'b1',
      progress: running,
      at: 35_002,
    });
    expect(given.batch).toBeUndefined();
    expect(given.effects.at(-1)).toEqual({
      type: 'each-member',
      localId: 'b1',
      next: 'no-answer',
      why: expect.objectContaining({ code: 'batch_deadline', resubmit: false }),
      batchId: 'msgbatch_1',
    });
  });

  it('a lost batch tells each of its requests why; a released one sends them back', () => {
    const lost = transition(SETTINGS, slice(undefined, polling), {
      type: 'batch-lost',
      localId: 'b1',
      why: EXPIRED,
    });
    expect(lost.effects).toEqual([
      { type: 'each-member', localId: 'b1', next: 'no-answer', why: EXPIRED, batchId: 'msgbatch_1' },
    ]);
    const released = transition(SETTINGS, slice(undefined, { kind: 'resuming' }), {
      type: 'batch-released',
      localId: 'b1',
      next: 'requeue',
    });
    expect(released.effects).toEqual([{ type: 'each-member', localId: 'b1', next: 'requeue' }]);
  });
});

/* Every event against every state: the function never throws, never leaves a negative count, and a
   request that leaves the machine leaves with exactly one effect that tells (or drops) it. */
describe('every event in every state', () => {
  const requests: Array<RequestState | undefined> = [
    undefined,
    routing(),
    routing(0),
    { kind: 'queued', waiters: 1, rounds: 1, chunk: 1, model: 'm', bytes: 10 },
    inBatch(),
    inBatch(0),
    { kind: 'online', waiters: 2, rounds: 1 },
  ];
  const batches: Array<BatchPhase | undefined> = [
    undefined,
    { kind: 'resuming' },
    { kind: 'creating' },
    polling,
    { ...polling, canceledAt: 0 },
    { kind: 'collecting', batchId: 'msgbatch_1' },
  ];
  const collector: Collector = {
    ...EMPTY_COLLECTOR,
    open: { m: { chunk: 1, count: 1, bytes: 10 } },
    idleTimer: true,
    collectTimer: true,
    delivering: 1,
    submitting: 0,
  };
  const progress = [
    { state: 'running', providerStatus: 'in_progress' },
    { state: 'ended', providerStatus: 'ended' },
    { state: 'failed', providerStatus: 'failed', reason: 'invalid' },
  ] as const;
  const events: MachineEvent[] = [
    { type: 'arrive', id: 'r' },
    { type: 'leave', id: 'r' },
    { type: 'queue', id: 'r', model: 'm', bytes: 10 },
    { type: 'queue', id: 'r', model: 'm', bytes: 10_000 },
    { type: 'attach', id: 'r', localId: 'b1' },
    { type: 'enter', id: 'r', localId: 'b1' },
    { type: 'answer', id: 'r', result: RESULT },
    { type: 'error', id: 'r', error: new Error('x') },
    { type: 'no-answer', id: 'r', why: EXPIRED },
    { type: 'no-answer', id: 'r', why: REFUSED },
    { type: 'requeue', id: 'r' },
    { type: 'reroute', id: 'r' },
    { type: 'idle-timer' },
    { type: 'collect-timer' },
    { type: 'flush' },
    { type: 'submission-ended', chunk: 0 },
    { type: 'prepared', localId: 'b1' },
    { type: 'created', localId: 'b1', batchId: 'msgbatch_2', at: 1 },
    { type: 'adopt', localId: 'b1', batchId: 'msgbatch_2', submittedAt: 1 },
    { type: 'poll-timer', localId: 'b1' },
    ...progress.map((p) => ({ type: 'polled' as const, localId: 'b1', progress: p, at: 60_000 })),
    { type: 'collected', localId: 'b1' },
    { type: 'batch-lost', localId: 'b1', why: EXPIRED },
    { type: 'batch-released', localId: 'b1', next: 'reroute' },
  ];
  const telling = new Set(['resolve', 'reject', 'fail', 'drop']);

  for (const settings of [SETTINGS, ONLINE])
    for (const event of events)
      it(`${settings.fallback}: ${event.type} ${JSON.stringify(event).slice(0, 60)}`, () => {
        for (const request of requests)
          for (const batch of batches) {
            const step = transition(settings, { collector, request, batch }, event);
            expect(step.request?.waiters ?? 0).toBeGreaterThanOrEqual(0);
            expect(step.collector.delivering).toBeGreaterThanOrEqual(0);
            for (const open of Object.values(step.collector.open)) expect(open.count).toBeGreaterThan(0);
            const told = step.effects.filter((effect) => telling.has(effect.type)).length;
            expect(told).toBe(request && !step.request ? 1 : 0);
            if (event.type === 'arrive' && !request) expect(step.request).toEqual(routing());
          }
      });
});

import { describe, expect, it } from 'vitest';
import { BatchScheduler, type IoEffect } from './batch-scheduler';
import { ENVELOPE_BYTES, type MachineSettings } from './batch-state-machine';
import type { CompletionResult } from './completion-types';
import { FakeClock } from './fake-clock';

const SETTINGS: MachineSettings = {
  fallback: 'resubmit',
  maxRounds: 3,
  maxRequestsPerBatch: 100,
  maxBytesPerBatch: ENVELOPE_BYTES + 10_000,
  maxRequestBytes: ENVELOPE_BYTES + 10_000,
  idleMs: 2_000,
  maxCollectMs: 60_000,
  pollIntervalMs: 2_000,
  maxPollIntervalMs: 60_000,
  deadlineMs: 25 * 3_600_000,
  cancelGraceMs: 10 * 60_000,
};

/** A scheduler on a fake clock whose I/O effects are recorded with the time they were asked for. */
function harness(settings: Partial<MachineSettings> = {}) {
  const clock = new FakeClock(0);
  const effects: Array<IoEffect & { at: number }> = [];
  const scheduler = new BatchScheduler({ ...SETTINGS, ...settings }, clock, (effect) =>
    effects.push({ ...effect, at: clock.now() }),
  );
  const arrive = (id: string, bytes = 10) => {
    scheduler.dispatch({ type: 'arrive', id });
    scheduler.dispatch({ type: 'queue', id, model: 'm', bytes });
  };
  const of = (type: IoEffect['type']) => effects.filter((effect) => effect.type === type);
  return { clock, scheduler, effects, arrive, of };
}

describe('collection timers on the fake clock', () => {
  it('submits once no request came for idleMs', () => {
    const { clock, arrive, of } = harness();
    arrive('a');
    clock.advance(1_500);
    arrive('b');
    clock.advance(1_999);
    expect(of('submit')).toEqual([]);
    clock.advance(1);
    expect(of('submit')).toEqual([{ type: 'submit', chunk: 1, at: 3_500 }]);
  });

  it('submits maxCollectMs after the first request even while requests keep coming', () => {
    const { clock, arrive, of, scheduler } = harness();
    for (let i = 0; i < 50; i += 1) {
      arrive(`r${i}`);
      clock.advance(1_500);
    }
    expect(of('submit')).toEqual([{ type: 'submit', chunk: 1, at: 60_000 }]);
    expect(scheduler.chunkMembers(1)).toHaveLength(40);
  });

  it('while results are handed out the idle flush waits; it goes once they are', () => {
    const { clock, arrive, of, scheduler } = harness();
    scheduler.dispatch({ type: 'prepared', localId: 'b1' });
    scheduler.dispatch({ type: 'created', localId: 'b1', batchId: 'x', at: 0 });
    clock.advance(2_000);
    scheduler.dispatch({
      type: 'polled',
      localId: 'b1',
      progress: { state: 'ended', providerStatus: 'ended' },
      at: 2_000,
    });
    arrive('follow-up');
    clock.advance(10_000);
    expect(of('submit')).toEqual([]);
    scheduler.dispatch({ type: 'collected', localId: 'b1' });
    clock.advance(2_000);
    expect(of('submit')).toEqual([{ type: 'submit', chunk: 1, at: 14_000 }]);
  });

  it('leaves no timer once the last queued request leaves', () => {
    const { clock, scheduler } = harness();
    scheduler.dispatch({ type: 'arrive', id: 'a' });
    scheduler.dispatch({ type: 'queue', id: 'a', model: 'm', bytes: 10 });
    expect(clock.pending).toBe(2);
    scheduler.dispatch({ type: 'leave', id: 'a' });
    expect(clock.pending).toBe(0);
    expect(scheduler.activeTimers).toBe(0);
    expect(scheduler.requestCount).toBe(0);
  });
});

describe('polling on the fake clock', () => {
  it('polls after 2, 4, 8 … s up to the maximum; cancels past the deadline and gives up after the grace', () => {
    const { clock, scheduler, effects, of, arrive } = harness({
      maxPollIntervalMs: 16_000,
      deadlineMs: 60_000,
      cancelGraceMs: 30_000,
    });
    arrive('a');
    clock.advance(2_000);
    scheduler.dispatch({ type: 'prepared', localId: 'b1' });
    scheduler.dispatch({ type: 'enter', id: 'a', localId: 'b1' });
    scheduler.dispatch({ type: 'created', localId: 'b1', batchId: 'msgbatch_1', at: clock.now() });
    scheduler.dispatch({ type: 'submission-ended', chunk: 1 });
    // The poller answers every poll at once: still running.
    for (let i = 0; i < 12 && scheduler.batch('b1'); i += 1) {
      clock.runNext();
      scheduler.dispatch({
        type: 'polled',
        localId: 'b1',
        progress: { state: 'running', providerStatus: 'in_progress' },
        at: clock.now(),
      });
    }
    expect(of('poll').map((effect) => effect.at - 2_000)).toEqual([
      2_000, 6_000, 14_000, 30_000, 46_000, 62_000, 78_000, 94_000,
    ]);
    expect(of('cancel')).toEqual([{ type: 'cancel', localId: 'b1', batchId: 'msgbatch_1', at: 64_000 }]);
    expect(effects.at(-1)).toMatchObject({ type: 'fail', id: 'a', why: { code: 'batch_deadline' } });
    expect(scheduler.activeTimers).toBe(0);
    expect(clock.pending).toBe(0);
  });
});

describe('requests through batches', () => {
  it('a batch that loses its requests sends each back once, and a second loss fails them after maxRounds', () => {
    const { clock, scheduler, of, arrive } = harness({ maxRounds: 2 });
    const expired = { code: 'batch_expired', detail: 'expired', resubmit: true, online: true } as const;
    arrive('a');
    arrive('b');
    let rendersSeen = 0;
    for (const [round, localId] of [
      [1, 'b1'],
      [2, 'b2'],
    ] as const) {
      clock.advance(2_000);
      const last = of('submit').at(-1);
      const chunk = last?.type === 'submit' ? last.chunk : 0;
      expect(scheduler.chunkMembers(chunk).sort()).toEqual(['a', 'b']);
      scheduler.dispatch({ type: 'prepared', localId });
      for (const id of scheduler.chunkMembers(chunk)) scheduler.dispatch({ type: 'enter', id, localId });
      scheduler.dispatch({ type: 'submission-ended', chunk });
      expect(scheduler.request('a')).toMatchObject({ kind: 'in-batch', rounds: round, localId });
      scheduler.dispatch({ type: 'batch-lost', localId, why: expired });
      const renders = of('render').slice(rendersSeen);
      rendersSeen += renders.length;
      if (round === 1) expect(renders).toHaveLength(2);
      for (const render of renders)
        if (render.type === 'render' && round === 1)
          scheduler.dispatch({ type: 'queue', id: render.id, model: 'm', bytes: 10 });
    }
    expect(of('fail').map((effect) => (effect.type === 'fail' ? [effect.id, effect.rounds] : []))).toEqual([
      ['a', 2],
      ['b', 2],
    ]);
    expect(scheduler.requestCount).toBe(0);
    expect(clock.pending).toBe(0);
  });

  it('answers go to the request whatever state it is in, once', () => {
    const { scheduler, of } = harness();
    scheduler.dispatch({ type: 'arrive', id: 'a' });
    scheduler.dispatch({ type: 'arrive', id: 'a' });
    scheduler.dispatch({ type: 'answer', id: 'a', result: { text: 'x' } as CompletionResult });
    scheduler.dispatch({ type: 'answer', id: 'a', result: { text: 'y' } as CompletionResult });
    expect(of('resolve')).toHaveLength(1);
  });
});

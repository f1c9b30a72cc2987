import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BatchScheduler, type IoEffect } from './batch-scheduler';
import { ENVELOPE_BYTES, type MachineSettings, type NoAnswer } from './batch-state-machine';
import type { CompletionResult } from './completion-types';
import { FakeClock } from './fake-clock';

/**
 * The scheduler driven by random event orders: callers arriving and leaving, flushes, time passing,
 * and every I/O the scheduler asks for finishing in any order with any outcome (routes, renders,
 * submissions refused or lost, polls, partial results, resumed batches of an earlier process).
 */

const IDS = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7'];
const BYTES = [30, 50, 10, 70, 20, 200, 40, 30]; // r5 is larger than a batch may hold
const MODELS = ['a', 'a', 'b', 'a', 'b', 'a', 'a', 'b'];

const SETTINGS: MachineSettings = {
  fallback: 'resubmit',
  maxRounds: 2,
  maxRequestsPerBatch: 3,
  maxBytesPerBatch: ENVELOPE_BYTES + 100,
  maxRequestBytes: ENVELOPE_BYTES + 150,
  idleMs: 100,
  maxCollectMs: 1_000,
  pollIntervalMs: 50,
  maxPollIntervalMs: 400,
  deadlineMs: 2_000,
  cancelGraceMs: 500,
};

const WHY: NoAnswer[] = [
  { code: 'batch_expired', detail: 'expired', resubmit: true, online: true },
  { code: 'bad_request', detail: 'refused', resubmit: false, online: false },
  { code: 'batch_poll', detail: 'lost', resubmit: false, online: true },
];

/** An I/O the scheduler asked for, or a create call the simulated submitter made. */
type Pending = IoEffect | { type: 'create'; chunk: number; localId: string };

type Command =
  | { kind: 'arrive'; id: number }
  | { kind: 'leave'; id: number }
  | { kind: 'flush' }
  | { kind: 'advance'; ms: number }
  | { kind: 'finish'; pick: number; outcome: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('arrive' as const), id: fc.nat(IDS.length - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('leave' as const), id: fc.nat(IDS.length - 1) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'flush' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 700 }) }),
  },
  {
    weight: 8,
    arbitrary: fc.record({ kind: fc.constant('finish' as const), pick: fc.nat(), outcome: fc.nat(99) }),
  },
);

class World {
  readonly clock = new FakeClock(0);
  readonly scheduler: BatchScheduler;
  readonly pending: Pending[] = [];
  /** Callers waiting per request (each arrival adds one; a leave or the request's end removes them). */
  readonly waiters = new Map<string, number>();
  readonly told = new Map<string, number>();
  private batchSeq = 0;
  /** Every batch id used: this client's and the earlier process's ones requests attached to. */
  private readonly localIds = new Set<string>();
  submissionsInFlight = 0;
  readonly problems: string[] = [];

  constructor(settings: MachineSettings) {
    this.scheduler = new BatchScheduler(settings, this.clock, (effect) => this.perform(effect));
  }

  private perform(effect: IoEffect): void {
    if ('id' in effect && ['resolve', 'reject', 'fail', 'drop'].includes(effect.type)) {
      if (this.scheduler.request(effect.id)) this.problems.push(`${effect.id} told while still held`);
      if (effect.type === 'drop' && (this.waiters.get(effect.id) ?? 0) > 0)
        this.problems.push(`${effect.id} dropped with callers waiting`);
      this.told.set(effect.id, (this.told.get(effect.id) ?? 0) + (this.waiters.get(effect.id) ?? 0));
      this.waiters.set(effect.id, 0);
      return;
    }
    if (effect.type === 'emit' || effect.type === 'cancel') return;
    if (effect.type === 'submit') {
      this.submissionsInFlight += 1;
      if (this.submissionsInFlight > 1) this.problems.push('two submissions at once');
      this.checkChunk(effect.chunk);
    }
    this.pending.push(effect);
  }

  private checkChunk(chunk: number): void {
    const members = this.scheduler.chunkMembers(chunk);
    const bytes = members.reduce((sum, id) => sum + (BYTES[IDS.indexOf(id)] ?? 0), 0);
    if (members.length > SETTINGS.maxRequestsPerBatch)
      this.problems.push(`chunk ${chunk} has ${members.length}`);
    if (members.length > 1 && bytes > SETTINGS.maxBytesPerBatch - ENVELOPE_BYTES)
      this.problems.push(`chunk ${chunk} has ${bytes} bytes`);
    if (new Set(members.map((id) => MODELS[IDS.indexOf(id)])).size > 1)
      this.problems.push(`chunk ${chunk} mixes models`);
  }

  run(cmd: Command): void {
    const { scheduler } = this;
    switch (cmd.kind) {
      case 'arrive': {
        const id = IDS[cmd.id] as string;
        this.waiters.set(id, (this.waiters.get(id) ?? 0) + 1);
        scheduler.dispatch({ type: 'arrive', id });
        return;
      }
      case 'leave': {
        const id = IDS[cmd.id] as string;
        if ((this.waiters.get(id) ?? 0) === 0 || !scheduler.request(id)) return;
        this.waiters.set(id, (this.waiters.get(id) ?? 0) - 1);
        this.told.set(id, (this.told.get(id) ?? 0) + 1);
        scheduler.dispatch({ type: 'leave', id });
        return;
      }
      case 'flush':
        scheduler.dispatch({ type: 'flush' });
        return;
      case 'advance':
        this.clock.advance(cmd.ms);
        return;
      case 'finish': {
        if (this.pending.length === 0) return;
        const [item] = this.pending.splice(cmd.pick % this.pending.length, 1);
        if (item) this.finish(item, cmd.outcome);
      }
    }
  }

  /** Finishes one I/O; `outcome` (0–99) picks how, 0 always being the plain success. */
  finish(item: Pending, outcome: number): void {
    const { scheduler } = this;
    const dispatch = scheduler.dispatch.bind(scheduler);
    const why = WHY[outcome % WHY.length] as NoAnswer;
    const result = { text: 'ok' } as CompletionResult;
    switch (item.type) {
      case 'route':
      case 'render': {
        const at = IDS.indexOf(item.id);
        const open = [...this.liveBatches()][0];
        if (outcome < 70)
          dispatch({ type: 'queue', id: item.id, model: MODELS[at] as string, bytes: BYTES[at] as number });
        else if (item.type === 'route' && outcome < 80) dispatch({ type: 'answer', id: item.id, result });
        else if (item.type === 'route' && outcome < 90) {
          // An open batch holds it already: one of this client's, or an earlier process's (restart).
          const localId = open && outcome < 85 ? open : `old-${outcome}`;
          this.localIds.add(localId);
          dispatch({ type: 'attach', id: item.id, localId });
        } else dispatch({ type: 'error', id: item.id, error: new Error('state file unreadable') });
        return;
      }
      case 'submit':
        this.submit(item.chunk, outcome);
        return;
      case 'create':
        if (outcome < 80)
          dispatch({
            type: 'created',
            localId: item.localId,
            batchId: `x-${item.localId}`,
            at: this.clock.now(),
          });
        else dispatch({ type: 'batch-lost', localId: item.localId, why });
        this.submissionsInFlight -= 1;
        dispatch({ type: 'submission-ended', chunk: item.chunk });
        return;
      case 'resume':
        if (outcome < 60)
          dispatch({ type: 'adopt', localId: item.localId, batchId: `x-${item.localId}`, submittedAt: 0 });
        else if (outcome < 75) dispatch({ type: 'batch-released', localId: item.localId, next: 'requeue' });
        else if (outcome < 90) dispatch({ type: 'batch-released', localId: item.localId, next: 'reroute' });
        else dispatch({ type: 'batch-lost', localId: item.localId, why });
        return;
      case 'poll': {
        const state = outcome < 40 ? 'running' : outcome < 90 ? 'ended' : 'gone';
        if (state === 'gone') dispatch({ type: 'batch-lost', localId: item.localId, why });
        else
          dispatch({
            type: 'polled',
            localId: item.localId,
            progress: { state, providerStatus: state },
            at: this.clock.now(),
          });
        return;
      }
      case 'collect':
        this.collect(item.localId, outcome);
        return;
      case 'online':
        dispatch(
          outcome < 80
            ? { type: 'answer', id: item.id, result }
            : { type: 'error', id: item.id, error: new Error('down') },
        );
        return;
    }
  }

  private submit(chunk: number, outcome: number): void {
    const { scheduler } = this;
    if (outcome >= 90) {
      // The lock or the state file failed: every request of the chunk fails.
      for (const id of scheduler.chunkMembers(chunk))
        scheduler.dispatch({ type: 'error', id, error: new Error('lock') });
      this.submissionsInFlight -= 1;
      scheduler.dispatch({ type: 'submission-ended', chunk });
      return;
    }
    const members = scheduler.chunkMembers(chunk);
    if (members.length === 0) {
      this.submissionsInFlight -= 1;
      scheduler.dispatch({ type: 'submission-ended', chunk });
      return;
    }
    this.batchSeq += 1;
    const localId = `b${this.batchSeq}`;
    this.localIds.add(localId);
    scheduler.dispatch({ type: 'prepared', localId });
    for (const id of members) scheduler.dispatch({ type: 'enter', id, localId });
    this.pending.push({ type: 'create', chunk, localId });
  }

  /** Hands out a batch's results: each request answered or not (by the bits of `outcome`), or the read fails. */
  private collect(localId: string, outcome: number): void {
    const { scheduler } = this;
    const members = scheduler.membersOf(localId);
    members.forEach((id, i) => {
      if ((outcome >> i) % 2 === 0)
        scheduler.dispatch({ type: 'answer', id, result: { text: id } as CompletionResult });
    });
    if (outcome >= 90) {
      scheduler.dispatch({ type: 'batch-lost', localId, why: WHY[2] as NoAnswer });
      return;
    }
    for (const id of scheduler.membersOf(localId))
      scheduler.dispatch({
        type: 'no-answer',
        id,
        why: WHY[outcome % 2] as NoAnswer,
        batchId: `x-${localId}`,
      });
    scheduler.dispatch({ type: 'collected', localId });
  }

  private *liveBatches(): Iterable<string> {
    for (let i = 1; i <= this.batchSeq; i += 1) if (this.scheduler.batch(`b${i}`)) yield `b${i}`;
  }

  /** The indexes agree with the request states; no request is in two batches or two chunks. */
  checkConsistent(): void {
    const inBatch = new Map<string, string>();
    for (const localId of this.localIds)
      for (const id of this.scheduler.membersOf(localId)) {
        if (inBatch.has(id)) this.problems.push(`${id} in ${inBatch.get(id)} and ${localId}`);
        inBatch.set(id, localId);
      }
    let queuedOpen = 0;
    for (const id of IDS) {
      const state = this.scheduler.request(id);
      if (state?.kind === 'in-batch' && !this.scheduler.membersOf(state.localId).includes(id))
        this.problems.push(`${id} not indexed in ${state.localId}`);
      if (state?.kind === 'queued' && !this.scheduler.chunkMembers(state.chunk).includes(id))
        this.problems.push(`${id} not indexed in chunk ${state.chunk}`);
      if (state?.kind === 'queued' && this.scheduler.collector.open[state.model]?.chunk === state.chunk)
        queuedOpen += 1;
      if (state && state.waiters !== (this.waiters.get(id) ?? 0)) this.problems.push(`${id} waiters differ`);
      if (!state && (this.waiters.get(id) ?? 0) > 0) this.problems.push(`${id} forgotten with callers`);
    }
    if (queuedOpen !== this.scheduler.collecting) this.problems.push('open chunk counts differ');
    const collecting = this.scheduler.collecting > 0;
    if (!collecting && (this.scheduler.collector.idleTimer || this.scheduler.collector.collectTimer))
      this.problems.push('a collection timer with nothing collecting');
  }

  /** Lets every I/O succeed and time run until nothing is left to do. */
  drain(): void {
    for (let step = 0; step < 10_000; step += 1) {
      const item = this.pending.shift();
      if (item) this.finish(item, 0);
      else if (!this.clock.runNext()) return;
    }
    this.problems.push('did not settle');
  }
}

function check(settings: MachineSettings, commands: Command[]): void {
  const world = new World(settings);
  const arrived = new Map<string, number>();
  for (const cmd of commands) {
    if (cmd.kind === 'arrive')
      arrived.set(IDS[cmd.id] as string, (arrived.get(IDS[cmd.id] as string) ?? 0) + 1);
    world.run(cmd);
    world.checkConsistent();
    expect(world.problems).toEqual([]);
  }
  world.drain();
  world.checkConsistent();
  expect(world.problems).toEqual([]);
  // Every caller heard exactly once (its answer, its error, or its own leave).
  for (const id of IDS) expect(world.told.get(id) ?? 0).toBe(arrived.get(id) ?? 0);
  // Idle: nothing held, no timer left, nothing being submitted or handed out.
  expect(world.scheduler.requestCount).toBe(0);
  expect(world.scheduler.batchCount).toBe(0);
  expect(world.scheduler.activeTimers).toBe(0);
  expect(world.clock.pending).toBe(0);
  expect(world.scheduler.collector).toMatchObject({
    open: {},
    closed: [],
    submitting: undefined,
    delivering: 0,
  });
}

describe('the scheduler under random event orders', () => {
  for (const fallback of ['resubmit', 'online'] as const)
    it(`keeps its invariants (fallback ${fallback})`, () => {
      fc.assert(
        fc.property(fc.array(command, { minLength: 1, maxLength: 120 }), (commands) =>
          check({ ...SETTINGS, fallback }, commands),
        ),
        { numRuns: 400 },
      );
    });
});

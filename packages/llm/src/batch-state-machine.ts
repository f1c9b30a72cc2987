import type { XsbErrorCode } from '@xsb/core';
import type { BatchEvent, BatchOptions } from './batching-client';
import type { Failure } from './classify-failure';
import type { CompletionResult } from './completion-types';
import type { BatchProgress } from './provider-adapter';

/**
 * The batching client's rules as one pure function: time comes in on events, timers go out as
 * effects. Flush rule: collected requests are submitted after `idleMs` with no new request, when a
 * batch is full, or `maxCollectMs` after the first; the idle clock stops while a batch's answers are
 * handed out, so a stage's follow-up calls (extract claims → verify them) form the next batch together.
 */

/** Room kept under a byte limit for the batch envelope (`{"requests":[…]}`, multipart headers). */
export const ENVELOPE_BYTES = 4096;

/** The batch options with their defaults, and the largest request a batch may take. */
export type MachineSettings = Required<
  Omit<BatchOptions, 'stateDir' | 'maxPending' | 'onEvent' | 'clock'>
> & {
  maxRequestBytes: number;
};

/** Why a batch gave a request no answer, and what may be tried next. */
export interface NoAnswer {
  code: XsbErrorCode;
  detail: string;
  /** A new batch could answer it. */
  resubmit: boolean;
  /** An online call could answer it. */
  online: boolean;
  failure?: Failure;
}

/** A batch gave no answer to a request an online call may still answer. */
export function unanswered(code: XsbErrorCode, detail: string, resubmit: boolean): NoAnswer {
  return { code, detail, resubmit, online: true };
}

/** One distinct request (identical concurrent calls share it); `rounds`: batches it went into here. */
export type RequestState =
  /** Looking in the state files (an open batch may hold it, a collected one may have answered it), or being rendered. */
  | { kind: 'routing'; waiters: number; rounds: number }
  /** In a chunk: still collecting while the chunk is open, else waiting for its submission. */
  | { kind: 'queued'; waiters: number; rounds: number; chunk: number; model: string; bytes: number }
  | { kind: 'in-batch'; waiters: number; rounds: number; localId: string }
  | { kind: 'online'; waiters: number; rounds: number };

export type BatchPhase =
  /** Found in a state file, not made here: its record is being checked before polling. */
  | { kind: 'resuming' }
  | { kind: 'creating' }
  | { kind: 'polling'; batchId: string; submittedAt: number; interval: number; canceledAt?: number }
  | { kind: 'collecting'; batchId: string };

/** A chunk still taking requests (one per model: a batch holds one model). */
export interface OpenChunk {
  chunk: number;
  count: number;
  bytes: number;
}

export interface Collector {
  open: Readonly<Record<string, OpenChunk>>;
  /** Closed chunks waiting for the submission before them to end. */
  closed: readonly number[];
  submitting: number | undefined;
  nextChunk: number;
  /** Batches whose results are being handed out: no idle flush meanwhile. */
  delivering: number;
  idleTimer: boolean;
  collectTimer: boolean;
}

export const EMPTY_COLLECTOR: Collector = {
  open: {},
  closed: [],
  submitting: undefined,
  nextChunk: 1,
  delivering: 0,
  idleTimer: false,
  collectTimer: false,
};

export type TimerName = 'idle' | 'collect' | `poll:${string}`;

export type MachineEvent =
  | { type: 'arrive'; id: string }
  | { type: 'leave'; id: string }
  | { type: 'queue'; id: string; model: string; bytes: number }
  /** An open batch (of this process or another) holds it already. */
  | { type: 'attach'; id: string; localId: string }
  | { type: 'enter'; id: string; localId: string }
  | { type: 'answer'; id: string; result: CompletionResult }
  | { type: 'error'; id: string; error: unknown }
  | { type: 'no-answer'; id: string; why: NoAnswer; batchId?: string }
  /** Its batch never reached the provider: into the next one, no round spent. */
  | { type: 'requeue'; id: string }
  /** Look in the state files again (another process collected its batch). */
  | { type: 'reroute'; id: string }
  | { type: 'idle-timer' }
  | { type: 'collect-timer' }
  | { type: 'flush' }
  | { type: 'submission-ended'; chunk: number }
  | { type: 'prepared'; localId: string }
  | { type: 'created'; localId: string; batchId: string; at: number }
  | { type: 'adopt'; localId: string; batchId: string; submittedAt: number }
  | { type: 'poll-timer'; localId: string }
  | { type: 'polled'; localId: string; progress: BatchProgress; at: number }
  | { type: 'collected'; localId: string }
  /** The batch will give its requests no (more) answers. */
  | { type: 'batch-lost'; localId: string; why: NoAnswer }
  /** A resumed record turned out failed (`requeue`) or collected by another process (`reroute`). */
  | { type: 'batch-released'; localId: string; next: 'requeue' | 'reroute' };

export type Effect =
  | { type: 'route'; id: string }
  | { type: 'render'; id: string }
  | { type: 'resolve'; id: string; result: CompletionResult }
  | { type: 'reject'; id: string; error: unknown }
  | { type: 'fail'; id: string; why: NoAnswer; batchId: string | undefined; rounds: number }
  | { type: 'online'; id: string }
  | { type: 'drop'; id: string }
  | { type: 'set-timer'; timer: TimerName; ms: number }
  | { type: 'clear-timer'; timer: TimerName }
  | { type: 'submit'; chunk: number }
  | { type: 'resume'; localId: string }
  | { type: 'poll'; localId: string; batchId: string }
  | { type: 'cancel'; localId: string; batchId: string }
  | { type: 'collect'; localId: string; batchId: string; progress: BatchProgress }
  /** The same event for every request the batch holds now. */
  | {
      type: 'each-member';
      localId: string;
      next: 'no-answer' | 'requeue' | 'reroute';
      why?: NoAnswer;
      batchId?: string;
    }
  | { type: 'emit'; event: BatchEvent };

export interface Slice {
  collector: Collector;
  request: RequestState | undefined;
  batch: BatchPhase | undefined;
}

export interface Step extends Slice {
  effects: Effect[];
}

type RequestEvent = Extract<MachineEvent, { id: string }>;
type On<T extends MachineEvent['type']> = Extract<MachineEvent, { type: T }>;
type BatchEventOf = Exclude<Extract<MachineEvent, { localId: string }>, RequestEvent>;

export function transition(settings: MachineSettings, slice: Slice, event: MachineEvent): Step {
  if ('id' in event) return requestStep(settings, slice, event);
  if ('localId' in event) return batchStep(settings, slice, event);
  return collectorStep(settings, slice, event);
}

/* ------------------------------------------------------------------ requests */

/** A request event's context: the settings, the slice it changes, and the request it is about. */
interface At {
  settings: MachineSettings;
  slice: Slice;
  request: RequestState;
}

function requestStep(settings: MachineSettings, slice: Slice, event: RequestEvent): Step {
  const { request } = slice;
  if (event.type === 'arrive') {
    if (request) return { ...slice, request: { ...request, waiters: request.waiters + 1 }, effects: [] };
    const fresh: RequestState = { kind: 'routing', waiters: 1, rounds: 0 };
    return { ...slice, request: fresh, effects: [{ type: 'route', id: event.id }] };
  }
  // Events for a request that is gone (answered, dropped) change nothing.
  if (!request) return { ...slice, effects: [] };
  const at: At = { settings, slice, request };
  switch (event.type) {
    case 'leave':
      return leave(at, event.id);
    case 'queue':
      return queue(at, event);
    case 'attach':
    case 'enter':
      return intoBatch(at, event);
    case 'answer':
      return moveTo(at, undefined, [{ type: 'resolve', id: event.id, result: event.result }]);
    case 'error':
      return moveTo(at, undefined, [{ type: 'reject', id: event.id, error: event.error }]);
    case 'no-answer':
      return noAnswer(at, event);
    case 'requeue':
    case 'reroute':
      return again(at, event);
  }
}

/** The request leaves its chunk (if queued) for `to`; undefined: it is settled and forgotten. */
function moveTo({ settings, slice, request }: At, to: RequestState | undefined, effects: Effect[]): Step {
  const out = unqueue(settings, slice.collector, request);
  return { ...slice, collector: out.collector, request: to, effects: [...effects, ...out.effects] };
}

function drop(at: At, id: string): Step {
  return moveTo(at, undefined, [{ type: 'drop', id }]);
}

function leave(at: At, id: string): Step {
  const { request } = at;
  const waiters = request.waiters - 1;
  // A batch or an online call under way still answers it into the cache; it is dropped once answered.
  if (waiters > 0 || request.kind === 'in-batch' || request.kind === 'online')
    return { ...at.slice, request: { ...request, waiters: Math.max(0, waiters) }, effects: [] };
  return drop(at, id);
}

function queue(at: At, event: On<'queue'>): Step {
  const { settings, slice, request } = at;
  if (request.kind !== 'routing') return { ...slice, effects: [] };
  if (request.waiters === 0) return drop(at, event.id);
  if (event.bytes > settings.maxRequestBytes - ENVELOPE_BYTES) {
    const detail = `is ${event.bytes} bytes, more than a batch may hold (${settings.maxRequestBytes})`;
    return noAnswer(at, { type: 'no-answer', id: event.id, why: unanswered('too_large', detail, false) });
  }
  const { collector, chunk, effects } = addToChunk(settings, slice.collector, event.model, event.bytes);
  const queued: RequestState = { ...request, kind: 'queued', chunk, model: event.model, bytes: event.bytes };
  return { ...slice, collector, request: queued, effects };
}

function intoBatch(at: At, event: On<'attach' | 'enter'>): Step {
  const { request } = at;
  if (request.kind !== 'routing' && request.kind !== 'queued') return { ...at.slice, effects: [] };
  const rounds = request.rounds + (event.type === 'enter' ? 1 : 0);
  const next: RequestState = { kind: 'in-batch', waiters: request.waiters, rounds, localId: event.localId };
  // An open batch of another process (or a run before): followed once, whoever found it first.
  if (!at.slice.batch && event.type === 'attach') {
    const step = moveTo(at, next, [{ type: 'resume', localId: event.localId }]);
    return { ...step, batch: { kind: 'resuming' } };
  }
  return moveTo(at, next, []);
}

/** Resubmits, sends online or fails a request a batch did not answer, as `fallback` says. */
function noAnswer(at: At, event: On<'no-answer'>): Step {
  const { id, why, batchId } = event;
  const { waiters, rounds } = at.request;
  if (waiters === 0) return drop(at, id);
  if (at.settings.fallback === 'online' && why.online) {
    const emit: Effect = { type: 'emit', event: { type: 'online', customId: id, reason: why.detail } };
    return moveTo(at, { kind: 'online', waiters, rounds }, [emit, { type: 'online', id }]);
  }
  if (why.resubmit && rounds < at.settings.maxRounds)
    return moveTo(at, { kind: 'routing', waiters, rounds }, [{ type: 'render', id }]);
  return moveTo(at, undefined, [{ type: 'fail', id, why, batchId, rounds }]);
}

function again(at: At, event: On<'requeue' | 'reroute'>): Step {
  const { waiters, rounds } = at.request;
  if (waiters === 0) return drop(at, event.id);
  const effect: Effect = { type: event.type === 'requeue' ? 'render' : 'route', id: event.id };
  const next = event.type === 'requeue' ? Math.max(0, rounds - 1) : rounds;
  return moveTo(at, { kind: 'routing', waiters, rounds: next }, [effect]);
}

/* ------------------------------------------------------------------ collector */

function collectorStep(
  settings: MachineSettings,
  slice: Slice,
  event: Exclude<MachineEvent, { id: string } | { localId: string }>,
): Step {
  const { collector } = slice;
  switch (event.type) {
    case 'idle-timer':
      // While answers are handed out, their callers' follow-up calls are still to come.
      if (collector.delivering > 0)
        return {
          ...slice,
          collector: { ...collector, idleTimer: true },
          effects: [{ type: 'set-timer', timer: 'idle', ms: settings.idleMs }],
        };
      return flushAll(settings, slice, { ...collector, idleTimer: false });
    case 'collect-timer':
      return flushAll(settings, slice, { ...collector, collectTimer: false });
    case 'flush':
      return flushAll(settings, slice, collector);
    case 'submission-ended': {
      if (collector.submitting !== event.chunk) return { ...slice, effects: [] };
      const [next, ...rest] = collector.closed;
      const effects: Effect[] = next === undefined ? [] : [{ type: 'submit', chunk: next }];
      return { ...slice, collector: { ...collector, submitting: next, closed: rest }, effects };
    }
  }
}

function addToChunk(
  settings: MachineSettings,
  initial: Collector,
  model: string,
  bytes: number,
): { collector: Collector; chunk: number; effects: Effect[] } {
  const effects: Effect[] = [];
  let collector = initial;
  let open: OpenChunk | undefined = collector.open[model];
  if (open && (open.count >= settings.maxRequestsPerBatch || open.bytes + bytes > limitBytes(settings))) {
    collector = close(collector, model, effects);
    open = undefined;
  }
  if (!open) {
    open = { chunk: collector.nextChunk, count: 0, bytes: 0 };
    collector = { ...collector, nextChunk: collector.nextChunk + 1 };
  }
  open = { chunk: open.chunk, count: open.count + 1, bytes: open.bytes + bytes };
  collector = { ...collector, open: { ...collector.open, [model]: open } };
  if (isFull(settings, open)) collector = close(collector, model, effects);
  const timed = syncTimers(settings, collector, true);
  return { collector: timed.collector, chunk: open.chunk, effects: [...effects, ...timed.effects] };
}

function limitBytes(settings: MachineSettings): number {
  return settings.maxBytesPerBatch - ENVELOPE_BYTES;
}

function isFull(settings: MachineSettings, open: OpenChunk): boolean {
  return open.count >= settings.maxRequestsPerBatch || open.bytes >= limitBytes(settings);
}

/** Closes a model's open chunk: it is submitted now, or after the submissions before it. */
function close(collector: Collector, model: string, effects: Effect[]): Collector {
  const open = collector.open[model];
  if (!open) return collector;
  const { [model]: _closed, ...rest } = collector.open;
  if (collector.submitting === undefined) {
    effects.push({ type: 'submit', chunk: open.chunk });
    return { ...collector, open: rest, submitting: open.chunk };
  }
  return { ...collector, open: rest, closed: [...collector.closed, open.chunk] };
}

function flushAll(settings: MachineSettings, slice: Slice, initial: Collector): Step {
  const effects: Effect[] = [];
  let collector = initial;
  for (const model of Object.keys(collector.open)) collector = close(collector, model, effects);
  const timed = syncTimers(settings, collector, false);
  return { ...slice, collector: timed.collector, effects: [...effects, ...timed.effects] };
}

/** No timers while no chunk is open; an arrival restarts the idle timer and starts the collect timer. */
function syncTimers(
  settings: MachineSettings,
  collector: Collector,
  arrived: boolean,
): { collector: Collector; effects: Effect[] } {
  const effects: Effect[] = [];
  if (Object.keys(collector.open).length === 0) {
    if (collector.idleTimer) effects.push({ type: 'clear-timer', timer: 'idle' });
    if (collector.collectTimer) effects.push({ type: 'clear-timer', timer: 'collect' });
    return { collector: { ...collector, idleTimer: false, collectTimer: false }, effects };
  }
  if (!arrived) return { collector, effects };
  effects.push({ type: 'set-timer', timer: 'idle', ms: settings.idleMs });
  if (!collector.collectTimer)
    effects.push({ type: 'set-timer', timer: 'collect', ms: settings.maxCollectMs });
  return { collector: { ...collector, idleTimer: true, collectTimer: true }, effects };
}

function unqueue(
  settings: MachineSettings,
  collector: Collector,
  request: RequestState,
): { collector: Collector; effects: Effect[] } {
  if (request.kind !== 'queued') return { collector, effects: [] };
  const open = collector.open[request.model];
  if (open?.chunk !== request.chunk) return { collector, effects: [] };
  const left = { ...open, count: open.count - 1, bytes: open.bytes - request.bytes };
  if (left.count > 0)
    return { collector: { ...collector, open: { ...collector.open, [request.model]: left } }, effects: [] };
  const { [request.model]: _empty, ...rest } = collector.open;
  return syncTimers(settings, { ...collector, open: rest }, false);
}

/* ------------------------------------------------------------------ batches */

function batchStep(settings: MachineSettings, slice: Slice, event: BatchEventOf): Step {
  const { batch } = slice;
  const same = { ...slice, effects: [] };
  switch (event.type) {
    case 'prepared':
      return batch ? same : { ...slice, batch: { kind: 'creating' }, effects: [] };
    case 'created':
    case 'adopt': {
      if (batch?.kind !== (event.type === 'created' ? 'creating' : 'resuming')) return same;
      const submittedAt = event.type === 'created' ? event.at : event.submittedAt;
      const polling: BatchPhase = {
        kind: 'polling',
        batchId: event.batchId,
        submittedAt,
        interval: settings.pollIntervalMs,
      };
      const timer: Effect = {
        type: 'set-timer',
        timer: `poll:${event.localId}`,
        ms: settings.pollIntervalMs,
      };
      return { ...slice, batch: polling, effects: [timer] };
    }
    case 'poll-timer':
      if (batch?.kind !== 'polling') return same;
      return { ...slice, effects: [{ type: 'poll', localId: event.localId, batchId: batch.batchId }] };
    case 'polled':
      return batch?.kind === 'polling' ? polled(settings, slice, batch, event) : same;
    case 'collected':
      return batch ? endBatch(slice, batch, []) : same;
    case 'batch-lost': {
      if (!batch) return same;
      const batchId = 'batchId' in batch ? batch.batchId : undefined;
      const each: Effect = {
        type: 'each-member',
        localId: event.localId,
        next: 'no-answer',
        why: event.why,
        ...(batchId ? { batchId } : {}),
      };
      return endBatch(slice, batch, [each]);
    }
    case 'batch-released':
      if (!batch) return same;
      return endBatch(slice, batch, [{ type: 'each-member', localId: event.localId, next: event.next }]);
  }
}

/** The batch is no longer followed; one whose results were being handed out no longer holds the idle flush. */
function endBatch(slice: Slice, batch: BatchPhase, effects: Effect[]): Step {
  const collector =
    batch.kind === 'collecting'
      ? { ...slice.collector, delivering: slice.collector.delivering - 1 }
      : slice.collector;
  return { ...slice, collector, batch: undefined, effects };
}

/** A batch given up `cancelGraceMs` after its deadline cancel keeps its record `submitted` for a later run. */
function polled(
  settings: MachineSettings,
  slice: Slice,
  batch: Extract<BatchPhase, { kind: 'polling' }>,
  event: On<'polled'>,
): Step {
  const { localId, progress, at } = event;
  const { batchId } = batch;
  const interval = Math.min(batch.interval * 2, settings.maxPollIntervalMs);
  const emit: Effect = {
    type: 'emit',
    event: {
      type: 'polled',
      localId,
      batchId,
      providerStatus: progress.providerStatus,
      nextPollMs: interval,
    },
  };
  if (progress.state !== 'running') {
    const collector = { ...slice.collector, delivering: slice.collector.delivering + 1 };
    const collecting: BatchPhase = { kind: 'collecting', batchId };
    return {
      collector,
      request: slice.request,
      batch: collecting,
      effects: [emit, { type: 'collect', localId, batchId, progress }],
    };
  }
  const effects: Effect[] = [emit];
  let canceledAt = batch.canceledAt;
  if (canceledAt === undefined && at - batch.submittedAt > settings.deadlineMs) {
    canceledAt = at;
    effects.push(
      { type: 'cancel', localId, batchId },
      { type: 'emit', event: { type: 'canceled', localId, batchId, reason: 'deadline' } },
    );
  }
  if (canceledAt !== undefined && at - canceledAt > settings.cancelGraceMs) {
    const detail = `got no answer: batch ${batchId} did not end within ${settings.deadlineMs} ms (canceled)`;
    const why = unanswered('batch_deadline', detail, false);
    return endBatch(slice, batch, [
      ...effects,
      { type: 'each-member', localId, next: 'no-answer', why, batchId },
    ]);
  }
  effects.push({ type: 'set-timer', timer: `poll:${localId}`, ms: interval });
  const next: BatchPhase = { ...batch, interval, ...(canceledAt !== undefined ? { canceledAt } : {}) };
  return { ...slice, batch: next, effects };
}

import {
  type BatchPhase,
  type Collector,
  type Effect,
  EMPTY_COLLECTOR,
  type MachineEvent,
  type MachineSettings,
  type RequestState,
  type TimerName,
  transition,
} from './batch-state-machine';
import type { Clock } from './clock';

/** The effects the machine leaves to the client: I/O, answers, progress. */
export type IoEffect = Exclude<Effect, { type: 'set-timer' | 'clear-timer' | 'each-member' }>;

/** Holds the batching state, feeds events through `transition` one at a time, and runs the timers. */
export class BatchScheduler {
  private collectorState: Collector = EMPTY_COLLECTOR;
  private readonly requests = new Map<string, RequestState>();
  private readonly batches = new Map<string, BatchPhase>();
  /** Requests per batch and per chunk, kept in step with the request states. */
  private readonly inBatch = new Map<string, Set<string>>();
  private readonly inChunk = new Map<number, Set<string>>();
  private readonly timers = new Map<TimerName, unknown>();
  private readonly backlog: MachineEvent[] = [];
  private applying = false;

  constructor(
    private readonly settings: MachineSettings,
    private readonly clock: Clock,
    private readonly perform: (effect: IoEffect) => void,
  ) {}

  dispatch(event: MachineEvent): void {
    this.backlog.push(event);
    if (this.applying) return;
    this.applying = true;
    try {
      for (let next = this.backlog.shift(); next; next = this.backlog.shift()) this.apply(next);
    } finally {
      this.applying = false;
    }
  }

  request(id: string): RequestState | undefined {
    return this.requests.get(id);
  }

  batch(localId: string): BatchPhase | undefined {
    return this.batches.get(localId);
  }

  get collector(): Collector {
    return this.collectorState;
  }

  /** The requests a batch holds now. */
  membersOf(localId: string): string[] {
    return [...(this.inBatch.get(localId) ?? [])];
  }

  /** The requests queued in a chunk now. */
  chunkMembers(chunk: number): string[] {
    return [...(this.inChunk.get(chunk) ?? [])];
  }

  /** Requests in chunks still collecting (not yet handed to the submitter). */
  get collecting(): number {
    let count = 0;
    for (const open of Object.values(this.collectorState.open)) count += open.count;
    return count;
  }

  get activeTimers(): number {
    return this.timers.size;
  }

  get requestCount(): number {
    return this.requests.size;
  }

  get batchCount(): number {
    return this.batches.size;
  }

  private apply(event: MachineEvent): void {
    const id = 'id' in event ? event.id : undefined;
    const localId = 'localId' in event ? event.localId : undefined;
    const before = id === undefined ? undefined : this.requests.get(id);
    const step = transition(
      this.settings,
      {
        collector: this.collectorState,
        request: before,
        batch: localId === undefined ? undefined : this.batches.get(localId),
      },
      event,
    );
    this.collectorState = step.collector;
    if (id !== undefined) this.setRequest(id, before, step.request);
    if (localId !== undefined) {
      if (step.batch) this.batches.set(localId, step.batch);
      else this.batches.delete(localId);
    }
    for (const effect of step.effects) this.carryOut(effect);
  }

  private setRequest(id: string, before: RequestState | undefined, after: RequestState | undefined): void {
    if (after) this.requests.set(id, after);
    else this.requests.delete(id);
    if (before?.kind === 'in-batch') unindex(this.inBatch, before.localId, id);
    if (before?.kind === 'queued') unindex(this.inChunk, before.chunk, id);
    if (after?.kind === 'in-batch') index(this.inBatch, after.localId, id);
    if (after?.kind === 'queued') index(this.inChunk, after.chunk, id);
  }

  private carryOut(effect: Effect): void {
    switch (effect.type) {
      case 'set-timer': {
        this.clock.clearTimeout(this.timers.get(effect.timer));
        const handle = this.clock.setTimeout(() => {
          this.timers.delete(effect.timer);
          this.dispatch(timerEvent(effect.timer));
        }, effect.ms);
        this.timers.set(effect.timer, handle);
        return;
      }
      case 'clear-timer':
        this.clock.clearTimeout(this.timers.get(effect.timer));
        this.timers.delete(effect.timer);
        return;
      case 'each-member':
        for (const id of this.membersOf(effect.localId)) {
          if (effect.next === 'no-answer' && effect.why)
            this.backlog.push({
              type: 'no-answer',
              id,
              why: effect.why,
              ...(effect.batchId ? { batchId: effect.batchId } : {}),
            });
          else if (effect.next !== 'no-answer') this.backlog.push({ type: effect.next, id });
        }
        return;
      default:
        this.perform(effect);
    }
  }
}

function timerEvent(timer: TimerName): MachineEvent {
  if (timer === 'idle') return { type: 'idle-timer' };
  if (timer === 'collect') return { type: 'collect-timer' };
  return { type: 'poll-timer', localId: timer.slice('poll:'.length) };
}

function index<K>(map: Map<K, Set<string>>, key: K, id: string): void {
  const set = map.get(key);
  if (set) set.add(id);
  else map.set(key, new Set([id]));
}

function unindex<K>(map: Map<K, Set<string>>, key: K, id: string): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(id);
  if (set.size === 0) map.delete(key);
}

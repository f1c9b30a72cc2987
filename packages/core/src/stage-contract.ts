// The one stage contract (docs/architecture.md): `xsb plan` prices the same work list a run executes,
// so plan and run cannot drift.
import { isXsbError } from './errors';
import { mapWithConcurrency } from './map-with-concurrency';
import type { ProgressReporter } from './progress-reporter';

/** The one status vocabulary of a stage's units, for every stage (decks included). */
export const UNIT_STATUSES = ['reused', 'done', 'failed'] as const;
export type UnitStatus = (typeof UNIT_STATUSES)[number];

/** Tokens of one judge call, as the provider reports them (structurally `@xsb/llm`'s `TokenUsage`). */
export interface CallUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** How a unit is decided. `Request` is the stage's request type (a `CompletionRequest` for model stages). */
export type WorkDecision<Request> =
  /** Its artifact exists with the same reuse key: read, not recomputed. */
  | { kind: 'reuse'; artifact: string }
  /** Decided by a deterministic rule (the offline judge, a layout check): no judge call. */
  | { kind: 'rule'; rule: string }
  /** `requests` as the first attempt sends them; `assumption`: it rests on an answer a plan cannot know. */
  | { kind: 'call'; requests: readonly Request[]; outputTokens: number; assumption?: string };

export interface WorkUnit<Request = unknown, Input = unknown> {
  /** The stage id, as in plans, ledgers and events (`probes`, `weights`, `eval.answerability`, …). */
  stage: string;
  /** Unique within the stage's list: `<case>`, `<case>/<audience>`, `<case>/<system>/<item>`. */
  id: string;
  /** The files whose bytes decide the unit. */
  reads: readonly string[];
  /** Hash of everything that decides the artifact: equal key → the artifact is reused. */
  reuseKey: string;
  decision: WorkDecision<Request>;
  /** What the executor's `run` needs for this unit, typed by the stage. */
  input: Input;
}

/** The typed events every stage emits; the CLI's progress line, the API's SSE stream and libraries read them. */
export type StageEvent =
  | { type: 'stage-started'; stage: string; total: number; unit: string }
  | { type: 'unit-done'; stage: string; id: string; status: 'done' | 'reused'; done: number; total: number }
  | { type: 'call-made'; stage: string; id: string; usage: CallUsage }
  | {
      type: 'unit-failed';
      stage: string;
      id: string;
      code: string;
      message: string;
      done: number;
      total: number;
    }
  | { type: 'stage-finished'; stage: string; total: number; done: number; reused: number; failed: number };

export type StageEventListener = (event: StageEvent) => void;

export interface UnitOutcome<Unit extends WorkUnit, Result> {
  unit: Unit;
  status: UnitStatus;
  result?: Result;
  error?: unknown;
}

export interface ExecuteWorkListOptions<Unit extends WorkUnit, Result> {
  /** Decides one unit (reads a reused artifact, applies the rule, or makes the calls) and writes its artifact. */
  run: (unit: Unit, context: UnitContext) => Promise<Result>;
  /** Units in flight at once. Default 1. */
  concurrency?: number;
  onEvent?: StageEventListener;
  /** What a unit is, for progress lines (`cases`, `judge calls`). Default `units`. */
  unitName?: string;
  /** Whether an error ends the stage instead of failing one unit; default: usage, config, internal. */
  stopsStage?: (error: unknown) => boolean;
}

export interface UnitContext {
  /** Reports a judge call's usage as a `call-made` event. */
  callMade(usage: CallUsage): void;
}

export function defaultStopsStage(error: unknown): boolean {
  if (!isXsbError(error)) return true;
  return error.kind === 'usage' || error.kind === 'config' || error.kind === 'internal';
}

/** A failed unit records its error; a stopping error lets units in flight finish (paid answers are kept). */
export async function executeWorkList<Unit extends WorkUnit, Result>(
  units: readonly Unit[],
  options: ExecuteWorkListOptions<Unit, Result>,
): Promise<Array<UnitOutcome<Unit, Result>>> {
  const stage = units[0]?.stage ?? 'stage';
  const emit = options.onEvent ?? (() => {});
  const stops = options.stopsStage ?? defaultStopsStage;
  const total = units.length;
  const outcomes = new Array<UnitOutcome<Unit, Result>>(total);
  const counts = { done: 0, reused: 0, failed: 0 };
  emit({ type: 'stage-started', stage, total, unit: options.unitName ?? 'units' });

  const runOne = async (unit: Unit, index: number): Promise<void> => {
    const context: UnitContext = {
      callMade: (usage) => emit({ type: 'call-made', stage: unit.stage, id: unit.id, usage }),
    };
    try {
      const result = await options.run(unit, context);
      const status = unit.decision.kind === 'reuse' ? 'reused' : 'done';
      counts[status] += 1;
      outcomes[index] = { unit, status, result };
      const finished = counts.done + counts.reused + counts.failed;
      emit({ type: 'unit-done', stage: unit.stage, id: unit.id, status, done: finished, total });
    } catch (error) {
      if (stops(error)) throw error;
      counts.failed += 1;
      outcomes[index] = { unit, status: 'failed', error };
      emit({
        type: 'unit-failed',
        stage: unit.stage,
        id: unit.id,
        code: isXsbError(error) ? error.code : 'internal',
        message: error instanceof Error ? error.message : String(error),
        done: counts.done + counts.reused + counts.failed,
        total,
      });
    }
  };
  await mapWithConcurrency(units, options.concurrency ?? 1, runOne);
  emit({ type: 'stage-finished', stage, total, ...counts });
  return outcomes;
}

/** The calls a work list would make, per stage: what a plan counts and what a run must match. */
export function callsPerStage(units: readonly WorkUnit[]): Record<string, number> {
  const calls: Record<string, number> = {};
  for (const unit of units) {
    if (unit.decision.kind !== 'call') continue;
    calls[unit.stage] = (calls[unit.stage] ?? 0) + unit.decision.requests.length;
  }
  return calls;
}

/** Draws a stage's events on a progress line (the CLI's bar or plain lines, or a library's own reporter). */
export function progressListener(progress: ProgressReporter): StageEventListener {
  return (event) => {
    if (event.type === 'stage-started') progress.start(event.stage, event.total, { unit: event.unit });
    else if (event.type === 'unit-done' && event.status === 'reused') progress.skip?.(1);
    else if (event.type === 'unit-done' || event.type === 'unit-failed') progress.tick(1);
    else if (event.type === 'stage-finished') {
      const failed = event.failed > 0 ? `, ${event.failed} failed` : '';
      progress.finish(`${event.done} done, ${event.reused} reused${failed}`);
    }
  };
}

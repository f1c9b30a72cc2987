import { describe, expect, it } from 'vitest';
import { ConfigError, InputError } from './errors';
import type { ProgressReporter } from './progress-reporter';
import {
  callsPerStage,
  executeWorkList,
  progressListener,
  type StageEvent,
  type WorkDecision,
  type WorkUnit,
} from './stage-contract';

function unit(id: string, decision: WorkDecision<string>, stage = 'probes'): WorkUnit<string, string> {
  return { stage, id, reads: [`${id}.txt`], reuseKey: `key-${id}`, decision, input: id };
}

const call = (requests: string[]): WorkDecision<string> => ({ kind: 'call', requests, outputTokens: 10 });

describe('executeWorkList', () => {
  it('runs every unit, returns outcomes in list order and emits the typed events', async () => {
    const events: StageEvent[] = [];
    const units = [
      unit('a', call(['r1'])),
      unit('b', { kind: 'reuse', artifact: 'b.json' }),
      unit('c', { kind: 'rule', rule: 'lexical' }),
    ];
    const outcomes = await executeWorkList(units, {
      concurrency: 2,
      unitName: 'cases',
      onEvent: (event) => events.push(event),
      run: async (u, context) => {
        if (u.decision.kind === 'call')
          context.callMade({ inputTokens: 5, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 });
        return u.input.toUpperCase();
      },
    });
    expect(outcomes.map((o) => [o.unit.id, o.status, o.result])).toEqual([
      ['a', 'done', 'A'],
      ['b', 'reused', 'B'],
      ['c', 'done', 'C'],
    ]);
    expect(events[0]).toEqual({ type: 'stage-started', stage: 'probes', total: 3, unit: 'cases' });
    expect(events.filter((e) => e.type === 'call-made')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'unit-done').map((e) => e.type === 'unit-done' && e.done)).toEqual(
      [1, 2, 3],
    );
    expect(events.at(-1)).toEqual({
      type: 'stage-finished',
      stage: 'probes',
      total: 3,
      done: 2,
      reused: 1,
      failed: 0,
    });
  });

  it('records a unit failure (input error) and goes on with the other units', async () => {
    const events: StageEvent[] = [];
    const outcomes = await executeWorkList([unit('a', call(['x'])), unit('b', call(['y']))], {
      onEvent: (event) => events.push(event),
      run: async (u) => {
        if (u.id === 'a') throw new InputError('not a PDF', { file: 'a.pdf' });
        return 'ok';
      },
    });
    expect(outcomes.map((o) => o.status)).toEqual(['failed', 'done']);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'unit-failed', id: 'a', code: 'input', message: 'a.pdf: not a PDF' }),
    );
    expect(events.at(-1)).toMatchObject({ type: 'stage-finished', failed: 1, done: 1 });
  });

  it('stops the stage on a config error after the units in flight finish, and starts no new unit', async () => {
    const started: string[] = [];
    let releaseB: () => void = () => {};
    const bDone = new Promise<void>((resolve) => {
      releaseB = resolve;
    });
    const run = executeWorkList([unit('a', call(['x'])), unit('b', call(['y'])), unit('c', call(['z']))], {
      concurrency: 2,
      run: async (u) => {
        started.push(u.id);
        if (u.id === 'a') throw new ConfigError('ANTHROPIC_API_KEY is not set');
        await bDone;
        return 'ok';
      },
    });
    releaseB();
    await expect(run).rejects.toThrow('ANTHROPIC_API_KEY');
    expect(started).toEqual(['a', 'b']);
  });

  it('an empty list still starts and finishes its stage', async () => {
    const events: StageEvent[] = [];
    await executeWorkList([], { run: async () => 1, onEvent: (e) => events.push(e) });
    expect(events.map((e) => e.type)).toEqual(['stage-started', 'stage-finished']);
  });
});

describe('callsPerStage', () => {
  it('counts the requests of call units per stage; reuse and rule units make none', () => {
    expect(
      callsPerStage([
        unit('a', call(['1', '2'])),
        unit('b', { kind: 'reuse', artifact: 'x' }),
        unit('c', { kind: 'rule', rule: 'lexical' }),
        unit('d', call(['3']), 'weights'),
      ]),
    ).toEqual({ probes: 2, weights: 1 });
  });
});

describe('progressListener', () => {
  it('draws the events on a progress reporter: reused units skip, others tick', async () => {
    const calls: string[] = [];
    const progress: ProgressReporter = {
      start: (label, total, options) => calls.push(`start ${label} ${total} ${options?.unit}`),
      tick: (count) => calls.push(`tick ${count}`),
      skip: (count) => calls.push(`skip ${count}`),
      finish: (summary) => calls.push(`finish ${summary}`),
    };
    await executeWorkList([unit('a', call(['x'])), unit('b', { kind: 'reuse', artifact: 'b' })], {
      unitName: 'cases',
      onEvent: progressListener(progress),
      run: async () => 'ok',
    });
    expect(calls).toEqual(['start probes 2 cases', 'tick 1', 'skip 1', 'finish 1 done, 1 reused']);
  });
});

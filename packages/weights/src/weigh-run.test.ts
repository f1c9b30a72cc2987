import { InputError, type Probe, probeSchema, RunLayout, UsageError, writeJsonlAtomic } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { weightRows } from './ensure-audience-weights';
import { LexicalUtilityJudge } from './lexical-utility-judge';
import { ScriptedUtilityJudge } from './testing';
import { weighRun } from './weigh-run';

const probe = (n: number, caseId = 'case_a'): Probe => ({
  probe_id: `pb_${String(n).padStart(4, '0')}`,
  source_case_id: caseId,
  scene: 'talk',
  question: `Question ${n}?`,
  answer: `Answer ${n}`,
  evidence: [{ locator: 'page 1', text: `evidence ${n}` }],
  level: 1,
  modality: 'text',
  theme: 'result',
  metadata: {},
});

let layout: RunLayout;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  const temp = await makeTempDir('xsb-weigh-run-');
  cleanup = temp.cleanup;
  layout = new RunLayout(temp.dir);
});
afterEach(() => cleanup());

const sourceCase = (caseId: string, audiences: string[]) => ({
  caseId,
  metadata: { valid_audiences: audiences },
});

describe('weighRun', () => {
  it('one row per case × audience, in case order: failed, not applicable, without profile, weighted', async () => {
    await writeJsonlAtomic(layout.probesFile('case_b'), probeSchema, [
      probe(1, 'case_b'),
      probe(2, 'case_b'),
    ]);
    const judge = new ScriptedUtilityJudge(() => 0.6);
    const rows = await weighRun(
      layout,
      {
        cases: [sourceCase('case_b', ['learners', 'investors']), sourceCase('case_c', ['learners'])],
        failures: [{ caseId: 'case_a', error: new InputError('two source files') }],
      },
      { judge, audiences: ['learners', 'specialists', 'investors'] },
    );
    expect(rows.map((row) => [row.caseLabel, row.audience, row.status, row.rows, row.error ?? null])).toEqual(
      [
        ['case_a', '-', 'failed', 0, 'two source files'],
        ['case_b', 'specialists', 'not_applicable', 0, null],
        [
          'case_b',
          'investors',
          'failed',
          0,
          'no profile for audience "investors" (known: specialists, learners, decision_makers; pass a profile for it)',
        ],
        ['case_b', 'learners', 'complete', 2, null],
        ['case_c', '-', 'failed', 0, 'no probe bank (generate the probes of this case first)'],
      ],
    );
    expect(judge.calls).toHaveLength(3);
  });

  it('before stage 2 (no case has a bank): one usage error, nothing weighted', async () => {
    const run = weighRun(
      layout,
      { cases: [sourceCase('case_a', ['learners'])], failures: [] },
      {
        judge: new LexicalUtilityJudge(),
      },
    );
    await expect(run).rejects.toBeInstanceOf(UsageError);
  });
});

describe('weightRows', () => {
  const identity = () => ({ judge: 'scripted' });
  const judgment = (value: number) => ({ value, rationale: `r${value}` });

  it('averages the snapped samples and flags high variance; a missing or invalid sample is a failure, never 0', () => {
    const bank = [probe(1), probe(2), probe(3)];
    const { rows, failures } = weightRows({ audience: 'learners', k: 2, identity, bank }, 'scripted', {
      samples: new Map([
        ['pb_0001', [judgment(0.29), judgment(1)]],
        ['pb_0002', [judgment(0.6), undefined]],
        ['pb_0003', [judgment(0.6), judgment(7)]],
      ]),
      reasons: new Map([['pb_0002', ['sample 1: no judgment']]]),
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      probe_id: 'pb_0001',
      utility_weight: 0.65,
      reason: 'r0.29',
      metadata: {
        judge: 'scripted',
        raw_values: [0.29, 1],
        snapped_values: [0.3, 1],
        std: 0.35,
        high_variance: true,
      },
    });
    expect(failures.map((f) => [f.probe_id, f.failed_samples, f.reason])).toEqual([
      ['pb_0002', [1], 'sample 1: no judgment'],
      ['pb_0003', [], 'invalid utility value'],
    ]);
  });
});

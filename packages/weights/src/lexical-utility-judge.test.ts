import type { Probe } from '@xsb/core';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_AUDIENCES } from './audience-profiles';
import { LexicalUtilityJudge, lexicalUtility } from './lexical-utility-judge';

const probe = (level: number, theme: string, modality = 'text'): Probe => ({
  probe_id: 'pb_0001',
  source_case_id: 'c',
  scene: 's',
  question: 'q?',
  answer: 'a',
  evidence: [{ locator: 'page 1', text: 'a' }],
  level,
  modality,
  theme,
  metadata: {},
});
const audience = (id: string) => BUILT_IN_AUDIENCES.find((profile) => profile.id === id)!;

describe('lexicalUtility', () => {
  it('follows each built-in profile table: level start, theme ±1 step, modality +1 step', () => {
    const cases: Array<[string, Probe, number]> = [
      ['specialists', probe(1, 'general'), 0],
      ['specialists', probe(3, 'results'), 1],
      ['specialists', probe(2, 'method', 'table'), 1],
      ['specialists', probe(2, 'definition'), 0.3],
      ['learners', probe(2, 'definition'), 1],
      ['learners', probe(1, 'quantitative'), 0.3],
      ['learners', probe(3, 'result'), 0.6],
      ['decision_makers', probe(1, 'quantitative'), 0.6],
      ['decision_makers', probe(3, 'cost impact'), 1],
      ['decision_makers', probe(2, 'method'), 0.3],
      ['decision_makers', probe(1, 'definition'), 0],
    ];
    for (const [id, p, expected] of cases)
      expect([id, p.theme, lexicalUtility(p, audience(id)).value]).toEqual([id, p.theme, expected]);
  });

  it('uses level alone for a profile without lexical preferences, and clamps odd levels', () => {
    const custom = { id: 'investors', description: 'People who fund the work and want the return.' };
    expect([1, 2, 3, 7, 0].map((level) => lexicalUtility(probe(level, 'result'), custom).value)).toEqual([
      0.3, 0.6, 1, 1, 0.3,
    ]);
  });

  it('gives the same judgment for every sample and explains it', async () => {
    const judge = new LexicalUtilityJudge();
    const input = { audience: audience('learners'), probes: [probe(2, 'definition')], k: 3 };
    const a = await judge.judgeBatch({ ...input, sampleIndex: 0 });
    const b = await judge.judgeBatch({ ...input, sampleIndex: 2 });
    expect(a.judgments).toEqual(b.judgments);
    expect(a.judgments.get('pb_0001')!.rationale).toMatch(/level 2 starts at 1.*definition/);
  });
});

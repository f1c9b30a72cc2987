import { describe, expect, it } from 'vitest';
import { BUILT_IN_AUDIENCES } from './audience-profiles';
import { buildUtilityJudgmentRequest, parseUtilityAnswer } from './utility-judgment-prompt';

const ids = new Set(['pb_0001', 'pb_0002', 'pb_0003']);

describe('parseUtilityAnswer', () => {
  it('reads arrays in prose or fences, numeric strings, and alternative value keys', () => {
    const answer = `Sure:\n\`\`\`json\n[{"probe_id":"pb_0001","utility":0.6,"rationale":"useful"},{"probe_id":"pb_0002","utility":"1","rationale":"key"},{"probe_id":"pb_0003","weight":0.25}]\n\`\`\``;
    const parsed = parseUtilityAnswer(answer, ids);
    expect([...parsed.judgments]).toEqual([
      ['pb_0001', { value: 0.6, rationale: 'useful' }],
      ['pb_0002', { value: 1, rationale: 'key' }],
      ['pb_0003', { value: 0.25, rationale: '' }],
    ]);
  });

  it('drops out-of-range values, lists unknown ids, keeps the first entry of an id', () => {
    const parsed = parseUtilityAnswer(
      JSON.stringify({
        judgments: [
          { probe_id: 'pb_0001', utility: 3 },
          { probe_id: 'pb_0009', utility: 0.3 },
          { probe_id: 'pb_0002', utility: 0.3 },
          { probe_id: 'pb_0002', utility: 1 },
        ],
      }),
      ids,
    );
    expect([...parsed.judgments.keys()]).toEqual(['pb_0002']);
    expect(parsed.judgments.get('pb_0002')!.value).toBe(0.3);
    expect(parsed.unknownIds).toEqual(['pb_0009']);
    expect(parseUtilityAnswer('no idea', ids).judgments.size).toBe(0);
  });
});

describe('buildUtilityJudgmentRequest', () => {
  it('puts the audience description and every probe id in the prompt, seeded by sample', () => {
    const probe = {
      probe_id: 'pb_0001',
      source_case_id: 'c',
      scene: 's',
      question: 'What rate?',
      answer: '42%',
      evidence: [{ locator: 'page 1', text: 'rate 42%' }],
      level: 1,
      modality: 'text',
      theme: 'result',
      metadata: {},
    };
    const request = buildUtilityJudgmentRequest(BUILT_IN_AUDIENCES[1]!, [probe], 2);
    const text = JSON.stringify(request.messages);
    expect(text).toContain('Students and newcomers');
    expect(text).toContain('pb_0001');
    expect(request.seed).toBe(2);
  });
});

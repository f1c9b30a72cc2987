import { extractJson } from '@xsb/llm';
import { describe, expect, it } from 'vitest';
import {
  answerabilityAnswerSchema,
  buildAnswerabilityRequest,
  reconcileJudgments,
} from './answerability-prompt';
import { claimExtractionAnswerSchema, claimsFromExtraction } from './claim-extraction-prompt';
import { claimVerificationAnswerSchema, reconcileVerdicts } from './claim-verification-prompt';

const parse = <T>(schema: { parse: (v: unknown) => T }, text: string): T => schema.parse(extractJson(text));

describe('answerability prompt and parser', () => {
  it('puts deck and source in a cacheable prefix and lists every probe field', () => {
    const request = buildAnswerabilityRequest({
      mode: 'text',
      deckText: '[Slide 1]\nHello',
      sourceContext: 'Source body',
      probes: [
        {
          probe_id: 'pb_1',
          source_case_id: 'c',
          scene: 's',
          question: 'Q?',
          answer: 'A.',
          evidence: [{ locator: 'p2', text: 'E.' }],
          level: 3,
          modality: 'table',
          theme: 'method',
          metadata: {},
        },
      ],
    });
    const parts = request.messages[0]!.content as Array<{
      type: string;
      text?: string;
      cacheBreakpoint?: boolean;
    }>;
    expect(parts[0]!.text).toContain('[Slide 1]\nHello');
    expect(parts[1]).toMatchObject({ cacheBreakpoint: true });
    expect(parts[1]!.text).toContain('Source body');
    const probes = JSON.parse(
      parts[2]!.text!.split('\n\nAnswer with JSON')[0]!.replace(/^PROBES \(1\):\n/, ''),
    );
    expect(probes[0]).toEqual({
      probe_id: 'pb_1',
      question: 'Q?',
      expected_answer: 'A.',
      evidence: ['p2: E.'],
      level: 3,
      modality: 'table',
      theme: 'method',
    });
  });

  it('reads messy answers: prose, fences, yes/no strings, percent confidence, slide numbers', () => {
    const text = `Sure! Here is my assessment.
\`\`\`json
{"judgments": [
  {"probe_id": "pb_2", "covered": "no", "answer": null, "cited_evidence": "", "confidence": "80%"},
  {"probe_id": "pb_1", "covered": "Yes", "answer": "48 percent", "cited_evidence": 3, "confidence": 0.9},
  {"probe_id": "pb_1", "covered": false, "answer": "", "confidence": 0.1},
  {"probe_id": "pb_9", "covered": true}
]}
\`\`\`
Let me know if you need more.`;
    const answer = parse(answerabilityAnswerSchema, text);
    const { judgments, missing, unknown } = reconcileJudgments(answer, ['pb_1', 'pb_2', 'pb_3']);
    expect(judgments).toEqual([
      { probe_id: 'pb_1', covered: true, answer: '48 percent', cited_evidence: 'Slide 3', confidence: 0.9 },
      { probe_id: 'pb_2', covered: false, answer: '', cited_evidence: '', confidence: 0.8 },
      { probe_id: 'pb_3', covered: false, answer: '', cited_evidence: '', confidence: 0 },
    ]);
    expect(missing).toEqual(['pb_3']);
    expect(unknown).toEqual(['pb_9']);
  });

  it('accepts a bare array and rejects a judgment without a covered verdict', () => {
    expect(
      parse(answerabilityAnswerSchema, '[{"probe_id": 7, "covered": true}]').judgments[0]!.probe_id,
    ).toBe('7');
    expect(() => parse(answerabilityAnswerSchema, '[{"probe_id": "a", "covered": "maybe"}]')).toThrow();
  });
});

describe('claim prompts', () => {
  it('keeps slide indices, orders by slide, drops out-of-range slides and duplicates', () => {
    const answer = parse(
      claimExtractionAnswerSchema,
      'Claims:\n[{"slide": "Slide 2", "claim": "B"}, {"slide": 1, "claim": "A"}, {"slide": 9, "claim": "X"}, {"slide": 2, "claim": "b"}, {"slide": 2, "claim": "C"}]',
    );
    expect(claimsFromExtraction(answer, 3, 10)).toEqual([
      { claim_id: 's1_c1', slide_index: 1, text: 'A' },
      { claim_id: 's2_c1', slide_index: 2, text: 'B' },
      { claim_id: 's2_c2', slide_index: 2, text: 'C' },
    ]);
  });

  it('normalises labels and treats a missing verdict as unsupported', () => {
    const answer = parse(
      claimVerificationAnswerSchema,
      '{"verdicts": [{"claim_id": "s1_c1", "label": "Supported."}, {"claim_id": "zz", "label": "contradicted"}]}',
    );
    const { verdicts, unknown } = reconcileVerdicts(answer, ['s1_c1', 's2_c1']);
    expect(verdicts.map((v) => v.label)).toEqual(['supported', 'unsupported']);
    expect(verdicts[1]!.rationale).toMatch(/no verdict/);
    expect(unknown).toEqual(['zz']);
  });
});

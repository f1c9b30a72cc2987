import { describe, expect, it } from 'vitest';
import { buildProbeGenerationRequest, parseProbeGenerationAnswer } from './probe-generation-prompt';

const item = {
  question: 'What accuracy was reached?',
  answer: '91.5%',
  evidence: [{ locator: 'page 2', text: 'accuracy was 91.5%' }],
  level: 1,
  modality: 'text',
  theme: 'result',
};

describe('parseProbeGenerationAnswer', () => {
  it('reads a bare JSON array', () => {
    expect(parseProbeGenerationAnswer(JSON.stringify([item]))).toEqual({ probes: [item], malformed: 0 });
  });

  it('reads an array inside prose and a code fence, or under a "probes" key', () => {
    const fenced = `Here are the probes:\n\`\`\`json\n${JSON.stringify([item])}\n\`\`\`\nHope this helps.`;
    expect(parseProbeGenerationAnswer(fenced)?.probes).toEqual([item]);
    expect(parseProbeGenerationAnswer(`Sure! ${JSON.stringify({ probes: [item] })}`)?.probes).toEqual([item]);
  });

  it('counts items with missing or invalid fields as malformed instead of guessing', () => {
    const answer = JSON.stringify([
      item,
      { ...item, question: '' },
      { ...item, answer: undefined },
      { ...item, evidence: [] },
      { ...item, level: 4 },
      { ...item, level: '2', modality: undefined, theme: 'Method', evidence: ['accuracy was 91.5%'] },
      'not an object',
    ]);
    const parsed = parseProbeGenerationAnswer(answer)!;
    expect(parsed.malformed).toBe(5);
    expect(parsed.probes[1]).toEqual({
      ...item,
      level: 2,
      modality: 'text',
      theme: 'method',
      evidence: [{ locator: '', text: 'accuracy was 91.5%' }],
    });
  });

  it('returns null when there is no probe list at all', () => {
    expect(parseProbeGenerationAnswer('I cannot help with that.')).toBeNull();
    expect(parseProbeGenerationAnswer('[{"question": "broken"')).toBeNull();
    expect(parseProbeGenerationAnswer('{"answer": 3}')).toBeNull();
  });
});

describe('buildProbeGenerationRequest', () => {
  it('sends the prefixed chunk, asks for verbatim evidence and seeds each sample differently', () => {
    const input = {
      caseId: 'c1',
      scene: 'talk',
      title: 'T',
      chunkText: '[Source chunk chars 0-5]\nhello',
      chunkBody: 'hello',
      chunkStart: 0,
      chunkIndex: 0,
      chunkCount: 1,
      generationIndex: 2,
      k: 3,
      pages: [],
      furniture: [],
    };
    const request = buildProbeGenerationRequest(input);
    expect(request.system).toMatch(/VERBATIM/);
    expect(JSON.stringify(request.messages)).toContain('[Source chunk chars 0-5]\\nhello');
    expect(request.seed).toBe(2);
    expect(buildProbeGenerationRequest({ ...input, generationIndex: 0 }).seed).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { classifyProbeDomain } from './classify-probe-domain';
import { makeProbe } from './testing';

describe('classifyProbeDomain', () => {
  it('lets a theme naming a domain decide', () => {
    expect(
      classifyProbeDomain(makeProbe('p', { theme: 'limitations', question: 'What was the result?' })),
    ).toBe('limitations');
    expect(classifyProbeDomain(makeProbe('p', { theme: 'Methodology' }))).toBe('method');
  });

  it('scores keywords over question and answer when the theme is neutral', () => {
    expect(
      classifyProbeDomain(
        makeProbe('p', { theme: 'general', question: 'How much did accuracy improve in the experiment?' }),
      ),
    ).toBe('evidence');
    expect(
      classifyProbeDomain(
        makeProbe('p', {
          theme: 'general',
          question: 'What does the deployment cost per site?',
          answer: 'x',
        }),
      ),
    ).toBe('implementation');
    expect(
      classifyProbeDomain(
        makeProbe('p', { theme: 'general', question: 'What policy do the authors recommend?', answer: 'x' }),
      ),
    ).toBe('implications');
  });

  it('uses modality and level and defaults to context', () => {
    expect(
      classifyProbeDomain(makeProbe('p', { theme: 'misc', question: 'X?', answer: 'Y', modality: 'table' })),
    ).toBe('evidence');
    expect(
      classifyProbeDomain(makeProbe('p', { theme: 'misc', question: 'X?', answer: 'Y', level: 2 })),
    ).toBe('context');
    expect(
      classifyProbeDomain(makeProbe('p', { theme: 'misc', question: 'X?', answer: 'Y', level: 3 })),
    ).toBe('implications');
  });
});

import { describe, expect, it } from 'vitest';
import {
  buildChecklistRequest,
  buildSharedPrefix,
  citedSlides,
  extractBoxed,
  parseVerdict,
} from './checklist-item-judge';

describe('parseVerdict', () => {
  it.each([
    ['The deck is fine.\n\\boxed{yes}', 'yes'],
    ['\\boxed{No}', 'no'],
    ['Final answer: \\boxed{\\text{Yes}}', 'yes'],
    ['\\boxed{\\textbf{NO}}.', 'no'],
    ['**Answer:** $\\boxed{\\text{no}}$', 'no'],
    ['\\boxed{ yes. }', 'yes'],
    ['\\boxed{"no"}', 'no'],
    ['\\boxed{**Yes**}', 'yes'],
    ['\\boxed{not\\ applicable}', 'not_applicable'],
    ['I must answer with \\boxed{...}. Slide 4 breaks the flow, so \\boxed{no}', 'no'],
    ['\\boxed{\\textsc{Yes}}', 'yes'],
    ['\\boxed{\\large no}', 'no'],
    // PresentBench f228b29: the last readable boxed verdict wins
    ['At first glance \\boxed{yes}, but Slide 9 repeats Slide 8: \\boxed{no}', 'no'],
  ])('%j → %s', (text, expected) => {
    expect(parseVerdict(text).answer).toBe(expected);
  });

  it.each([
    'Yes, the deck satisfies the requirement.',
    '\\boxed{partially}',
    '\\boxed{Yes, mostly}',
    '\\boxed{yes',
    '```json\n{"answer": "yes"}\n```',
    '',
  ])('%j is unparseable', (text) => {
    expect(parseVerdict(text).answer).toBeNull();
  });

  it('keeps the raw boxed content that decided', () => {
    expect(parseVerdict('\\boxed{\\text{Yes}}')).toEqual({ answer: 'yes', raw: '\\text{Yes}' });
  });

  it('extracts nested braces in full', () => {
    expect(extractBoxed('a \\boxed{\\text{x}} b \\boxed {y}')).toEqual(['\\text{x}', 'y']);
  });
});

describe('citedSlides', () => {
  it('collects single slides, lists and ranges', () => {
    expect(
      citedSlides('Slide 3 is verbose; Slides 5, 7 and 9 lack titles; slides 10-12 overlap (e.g., Slide 3).'),
    ).toEqual([3, 5, 7, 9, 10, 11, 12]);
  });
  it('reads Chinese slide references and drops numbers past the deck', () => {
    expect(citedSlides('第3页和幻灯片 4 有问题，Slide 99 不存在', 20)).toEqual([3, 4]);
  });
});

describe('buildChecklistRequest', () => {
  it('puts deck, materials and prefix first with the breakpoint on the prefix, the item last', () => {
    const shared = buildSharedPrefix('DECK', ['MATERIAL'], 'PREFIX');
    const request = buildChecklistRequest(shared, 'ITEM');
    const parts = request.messages[0]?.content;
    expect(Array.isArray(parts) && parts.map((part) => (part.type === 'text' ? part.text : ''))).toEqual([
      'DECK',
      'MATERIAL',
      'PREFIX',
      'ITEM',
    ]);
    expect(Array.isArray(parts) && parts.map((part) => part.cacheBreakpoint === true)).toEqual([
      false,
      false,
      true,
      false,
    ]);
  });
});

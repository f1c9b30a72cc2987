import { describe, expect, it } from 'vitest';
import { buildChecklistRequest, buildSharedPrefix, citedSlides } from './checklist-item-judge';

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

import { describe, expect, it } from 'vitest';
import { GroundingIndex } from './ground-evidence';

describe('GroundingIndex', () => {
  const source =
    'Intro.\nThe model’s accuracy — measured on  TEST data — was 91.5%.\nIt uses “sparse” attention.';

  it('finds quotes despite case, whitespace, punctuation and typographic quote/dash differences', () => {
    const index = new GroundingIndex(source);
    const match = index.find("the model's ACCURACY - measured on test data - was 91.5 %");
    expect(match).not.toBeNull();
    // The match ends after its last letter or digit: the quote's trailing "%" is punctuation here.
    expect(source.slice(match!.start, match!.end)).toBe(
      'The model’s accuracy — measured on  TEST data — was 91.5',
    );
    expect(index.find('It uses "sparse" attention')).not.toBeNull();
  });

  it('refuses invented, partial-word and empty quotes', () => {
    const index = new GroundingIndex(source);
    expect(index.find('The model accuracy was 95%')).toBeNull();
    expect(index.find('odel')).toBeNull();
    expect(index.find('... —')).toBeNull();
  });

  it('matches decomposed accents against composed ones', () => {
    const index = new GroundingIndex('Le cafe\u0301 est ouvert.');
    expect(index.find('le café est')).not.toBeNull();
  });

  it('maps a match to the PDF page holding its first character', () => {
    const text = 'Page one text here.\n\nPage two says the budget is 3 million.';
    const secondStart = text.indexOf('Page two');
    const index = new GroundingIndex(text, [
      { page: 1, start: 0, end: secondStart },
      { page: 2, start: secondStart, end: text.length },
    ]);
    expect(index.find('the budget is 3 million')?.page).toBe(2);
    expect(index.find('Page one text')?.page).toBe(1);
  });
});

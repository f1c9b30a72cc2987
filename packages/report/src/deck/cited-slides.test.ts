import { describe, expect, it } from 'vitest';
import { parseCitedSlides } from './cited-slides';

describe('parseCitedSlides', () => {
  it('reads what stage 5 writes and what model judges write', () => {
    expect(parseCitedSlides('Slide 3')).toEqual([3]);
    expect(parseCitedSlides('Slides 2 and 4')).toEqual([2, 4]);
    expect(parseCitedSlides('slides 3-5, slide 9')).toEqual([3, 4, 5, 9]);
    expect(parseCitedSlides('')).toEqual([]);
    expect(parseCitedSlides('the title slide')).toEqual([]);
  });

  it('drops slide numbers the deck does not have', () => {
    expect(parseCitedSlides('Slide 12', 8)).toEqual([]);
    expect(parseCitedSlides('Slides 7-10', 8)).toEqual([7, 8]);
  });
});

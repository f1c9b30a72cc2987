import { describe, expect, it } from 'vitest';
import { planLexicalOutline } from './plan-lexical-outline';

// Text as @xsb/sources extracts an HTML page: no Markdown, headings as short lines, table rows as
// cells joined by " | ".
const EXTRACTED = `Coral bleaching explained: heat stress, Degree Heating Weeks and recovery

Reef-building corals live in a partnership with single-celled algae that live inside the tissue. The algae pass up to 90 percent of the sugars they make to their host coral.

Measuring heat stress

NOAA tracks heat stress on reefs with its Coral Reef Watch satellite programme every day and publishes it; the programme has run since 2000 and covers every reef in the tropics in five kilometre cells. One week at 2 degrees above the mean adds 2 Degree Heating Weeks to the total.

Alert level | DHW threshold | Reefs affected
Level 1 | 4 | 120
Level 2 | 8 | 64
Level 3 | 12 | 30
`;

describe('planLexicalOutline on extracted plain text', () => {
  it('takes the first line as the title and turns " | " rows into a native table and chart', () => {
    const outline = planLexicalOutline(EXTRACTED, { fallbackTitle: 'coral', maxSlides: 8 });
    expect(outline.title).toBe('Coral bleaching explained: heat stress, Degree Heating Weeks and recovery');
    expect(outline.slides.map((slide) => slide.title)).toContain('Measuring heat stress');
    const table = outline.slides.find((slide) => slide.table)?.table;
    expect(table).toEqual({
      columns: ['Alert level', 'DHW threshold', 'Reefs affected'],
      rows: [
        ['Level 1', '4', '120'],
        ['Level 2', '8', '64'],
        ['Level 3', '12', '30'],
      ],
    });
    expect(outline.slides.find((slide) => slide.chart)?.chart?.categories).toEqual([
      'Level 1',
      'Level 2',
      'Level 3',
    ]);
  });

  it('ends a long sentence at its last semicolon within the word limit instead of cutting it', () => {
    const outline = planLexicalOutline(EXTRACTED, { fallbackTitle: 'coral', maxSlides: 8 });
    const bullets = outline.slides.flatMap((slide) => slide.bullets);
    expect(bullets).toContain(
      'NOAA tracks heat stress on reefs with its Coral Reef Watch satellite programme every day and publishes it.',
    );
  });
});

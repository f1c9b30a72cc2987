import { describe, expect, it } from 'vitest';
import { expectedEffects } from './evaluator-ids';

describe('expectedEffects', () => {
  it('overflow_text expects a fall in exactly the layout checks its boxes break', () => {
    const one = expectedEffects('overflow_text', ['off_slide']);
    expect(one.lower).toContain('layout.off_slide');
    expect(one.lower).not.toContain('layout.text_overlap');
    expect(one.lower.some((id) => id.startsWith('<'))).toBe(false);
    expect(expectedEffects('overflow_text').lower).toEqual(
      expect.arrayContaining(['layout.off_slide', 'layout.text_overlap', 'rubric.design']),
    );
  });

  it('corrupted numbers and swapped facts share one expectation; a call returns a fresh copy', () => {
    expect(expectedEffects('corrupt_numbers')).toEqual(expectedEffects('swap_facts'));
    const first = expectedEffects('drop_slides');
    first.lower.push('mutated');
    expect(expectedEffects('drop_slides').lower).not.toContain('mutated');
  });
});

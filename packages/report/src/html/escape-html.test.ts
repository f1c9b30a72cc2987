import { describe, expect, it } from 'vitest';
import { escapeHtml, safeId } from './escape-html';
import { meanIntervalCell } from './format-number';

describe('escapeHtml', () => {
  it('turns every markup character into an entity', () => {
    expect(escapeHtml('<script>alert("x")</script> & \'y\' `z`')).toBe(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39; &#96;z&#96;',
    );
    expect(escapeHtml(null)).toBe('');
    expect(escapeHtml(3)).toBe('3');
  });

  it('makes ids of [a-z0-9-] only, distinct for distinct inputs', () => {
    const a = safeId('deck', 'runs/demo/<x> "y"');
    expect(a).toMatch(/^deck-[a-z0-9-]+$/);
    expect(safeId('deck', 'a/b')).not.toBe(safeId('deck', 'a-b'));
  });
});

describe('meanIntervalCell', () => {
  it('never shows a mean without its n, and shows the interval when n > 1', () => {
    const muted = (text: string) => `<br><span class="small muted">${text}</span>`;
    expect(meanIntervalCell({ mean: 0.5, ci_low: 0.25, ci_high: 0.75, n: 4 })).toBe(
      `<b>0.500</b>${muted('[0.250, 0.750] n=4')}`,
    );
    expect(meanIntervalCell({ mean: 0.5, ci_low: 0.5, ci_high: 0.5, n: 1 })).toBe(
      `<b>0.500</b>${muted('n=1')}`,
    );
    expect(meanIntervalCell({ mean: null, ci_low: null, ci_high: null, n: 0 })).toBe(`–${muted('n=0')}`);
  });
});

import type { TopLevelSpec } from 'vega-lite';
import { describe, expect, it } from 'vitest';
import { intervalPlotSpec } from './interval-plots';
import { renderVegaLiteSvg } from './render-vega-lite';

describe('renderVegaLiteSvg', () => {
  it('renders a dot-and-interval plot to SVG with one mark per row, escaping labels', async () => {
    const svg = await renderVegaLiteSvg(
      intervalPlotSpec(
        [
          { label: 'a<script>', mean: 0.4, low: 0.2, high: 0.6, group: 'x' },
          { label: 'b', mean: 0.7, low: 0.6, high: 0.9, group: 'y' },
        ],
        { xTitle: 'coverage', groupTitle: 'g', colors: { x: '#111111', y: '#222222' }, domain: [0, 1] },
      ),
    );
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('a&lt;script&gt;');
    expect(svg).not.toContain('a<script>');
    const symbols = svg.match(/<g class="mark-symbol role-mark[^"]*"[^>]*>(.*?)<\/g>/)?.[1] ?? '';
    expect(symbols.match(/<path/g)).toHaveLength(2);
    expect(svg).toContain('fill="#111111"');
  });

  it('refuses a spec that would load data from anywhere', async () => {
    const spec = { data: { url: 'https://example.com/data.json' }, mark: 'point' } as TopLevelSpec;
    await expect(renderVegaLiteSvg(spec)).rejects.toThrow(/tried to load/);
  });
});

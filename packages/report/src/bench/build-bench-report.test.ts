import { join } from 'node:path';
import { BenchLayout, discoverBenchCases, runBench, splitCases } from '@xsb/bench';
import { makeFastTempDir } from '@xsb/bench/testing';
import { copyOfflineDemo } from '@xsb/eval/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBenchReport } from './build-bench-report';

let dir: string;
let cleanup: () => Promise<void>;
let dataDir: string;

beforeAll(async () => {
  ({ dir, cleanup } = await makeFastTempDir('xsb-report-bench-'));
  ({ dataDir } = await copyOfflineDemo(join(dir, 'demo')));
  const { cases } = await discoverBenchCases(dataDir);
  await splitCases(new BenchLayout(dataDir), cases, { testShare: 0 });
}, 300_000);
afterAll(() => cleanup());

/** The number of drawn marks (the paths in vega's `role-mark` groups) in the plot figure `id`. */
function marksOf(html: string, id: string): number {
  const figure = new RegExp(`<figure class="plot" id="${id}" data-plot>[\\s\\S]*?</figure>`).exec(html)?.[0];
  expect(figure, `plot ${id}`).toBeDefined();
  return (figure!.match(/role-mark[^"]*"[^>]*><path/g) ?? []).length;
}

describe('buildBenchReport', () => {
  it('draws ladder steps as a forest plot and leave-one-out deltas as bars, with the run header', async () => {
    const common = { dataDir, pipelineRun: 'demo', factors: ['claims'], resamples: 200 };
    const ladder = await runBench({ ...common, configs: 'ladder' });
    const { html, problems } = await buildBenchReport({ dir: ladder.dir });
    expect(problems).toEqual([]);
    expect(html).toContain('<section id="ladder">');
    expect(html).toContain('<h2>Ladder steps (');
    expect(marksOf(html, 'ladder-forest')).toBeGreaterThan(0);
    // the demo has 3 cases, fewer than diag_below: every comparison is a diagnostic and says so
    expect(html).toContain('diag (few cases)');
    expect(html).toContain('<dt>test-split openings</dt><dd>0');
    expect(html).toContain('<dt>tau_a</dt><dd>0.7</dd>');
    expect(html).toMatch(/Offline judge/);

    const loo = await runBench({ ...common, configs: 'loo' });
    const looReport = await buildBenchReport({ dir: loo.dir });
    expect(looReport.html).toContain('<section id="loo">');
    expect(marksOf(looReport.html, 'loo-bars')).toBeGreaterThan(0);
    expect(looReport.html).not.toContain('<section id="ladder">');
  }, 300_000);

  it('names the reference with how it was chosen, and each factor the default set left out', async () => {
    const run = await runBench({
      dataDir,
      pipelineRun: 'demo',
      configs: 'loo',
      systems: ['notebooklm__audience_agnostic'],
      resamples: 200,
    });
    const { html, problems } = await buildBenchReport({ dir: run.dir });
    expect(problems).toEqual([]);
    expect(html).toContain('reference notebooklm__audience_agnostic (the first of --systems)');
    expect(html).toContain(
      '<dt>left out factor judge_input</dt><dd>its &quot;on&quot; side sets judge_input=image (rendered slides) and the lexical judge cannot read images (not run)</dd>',
    );
  }, 300_000);
});

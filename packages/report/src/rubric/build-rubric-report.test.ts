import { makeFastTempDir } from '@xsb/bench/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareRubricResults } from '../testing';
import { buildRubricReport } from './build-rubric-report';

let dir: string;
let cleanup: () => Promise<void>;
let results: string;

beforeAll(async () => {
  ({ dir, cleanup } = await makeFastTempDir('xsb-report-rubric-'));
  results = await prepareRubricResults(dir);
}, 300_000);
afterAll(() => cleanup());

describe('buildRubricReport', () => {
  it('says what was measured: the judge with its model, no tau_a or split, the git state', async () => {
    const { html, problems } = await buildRubricReport({ dir: results, thumbnails: 'off' });
    // the fixture tree holds one instance with an unknown callable: a problem of that row, for each system
    expect(problems).toHaveLength(2);
    for (const problem of problems)
      expect(problem).toMatch(/ch2_bad_callable: .*unknown PresentBench callable/);
    expect(html).toContain(
      '<dt>judges</dt><dd>rubric items: openai:gpt-report (model gpt-report, called live)</dd>',
    );
    expect(html).toContain('<dt>tau_a</dt><dd>not used: the rubric scores checklist items');
    expect(html).toContain('<dt>split</dt><dd>none: rubric results are scored on every instance given');
    expect(html).toMatch(/<dt>git<\/dt><dd>(not in a git repository|[0-9a-f]{40})/);
    expect(html).not.toContain('Offline judge');
    expect(html).not.toContain(dir); // paths relative to the results folder
  });

  it('shows dimension scores with intervals, item verdicts with the explanation and cited slides, layout findings', async () => {
    const { html } = await buildRubricReport({ dir: results, thumbnails: 'off' });
    // one row per system, each dimension as mean [interval] n
    expect(html).toMatch(/genA[\s\S]*?<span class="small muted">(\[\d+\.\d+, \d+\.\d+\] )?n=\d+<\/span>/);
    expect(html).toContain('genB');
    // the fake judge's words, escaped, and the slides they cite
    expect(html).toContain('show the required content. \\boxed{yes}');
    expect(html).toContain('&lt;script&gt;window.__xsbInjected');
    expect(html).not.toContain('<script>window.__xsbInjected');
    expect(html).toMatch(/<tr[^>]* data-slides="2 3"/);
    // genB's deck has planted layout defects: a failed check with the slide it found
    expect(html).toMatch(/table[^>]*id="[^"]*-layout"[\s\S]*?failed/);
  });
});

import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { makeFastTempDir } from '@xsb/bench/testing';
import { offlineJudge } from '@xsb/llm';
import { runRubric } from '@xsb/rubric';
import { writeLayoutFixtureDecks } from '@xsb/rubric/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturesDir, prepareRubricResults } from '../testing';
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

describe('buildRubricReport on partly judged results (offline judge)', () => {
  it('shows n/a with the counts for a dimension whose items are not all judged, and names the system by --system', async () => {
    const { dir: temp, cleanup: done } = await makeFastTempDir('xsb-report-rubric-partial-');
    try {
      const decks = await writeLayoutFixtureDecks(temp);
      const resultsDir = join(temp, 'results-folder');
      const deckDir = join(
        resultsDir,
        'education/Computer_science_lectures/ch1_bits/generation_task/results',
      );
      await mkdir(deckDir, { recursive: true });
      await copyFile(decks.clean, join(deckDir, 'slides.pptx'));
      await runRubric({
        instancesDir: join(fixturesDir(), 'rubric', 'presentbench-layout', 'data'),
        resultsDir,
        judge: offlineJudge,
        system: 'My Generator',
      });
      const { html } = await buildRubricReport({ dir: resultsDir, thumbnails: 'off' });
      // fundamentals: 1 of 3 items decided by the slide-count check; before, a mean of 100.0 (n=1)
      expect(html).toContain(
        '<b>n/a</b><br><span class="small muted">1 of 3 judged: 1 yes, 2 not judged</span>',
      );
      expect(html).toContain(
        '<b>n/a</b><br><span class="small muted">1 instance with items not judged</span>',
      );
      expect(html).not.toMatch(/<b>100\.0<\/b>/);
      expect(html).toContain('paper total n/a (13 items not judged)');
      expect(html).toContain('<td>My Generator</td>');
      expect(html).not.toContain('<td>results-folder</td>');
    } finally {
      await done();
    }
  });
});

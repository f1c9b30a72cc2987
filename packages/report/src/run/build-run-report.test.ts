import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeFastTempDir } from '@xsb/bench/testing';
import { runDemo } from '@xsb/eval';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRunReport } from './build-run-report';

let dir: string;
let cleanup: () => Promise<void>;
let dataDir: string;

beforeAll(async () => {
  ({ dir, cleanup } = await makeFastTempDir('xsb-report-run-'));
  ({ dataDir } = await runDemo({ outDir: join(dir, 'demo') }));
}, 300_000);
afterAll(() => cleanup());

describe('buildRunReport', () => {
  it('says what was measured, with n and interval beside every mean', async () => {
    const { html, problems } = await buildRunReport({ dataDir, run: 'demo', thumbnails: 'off' });
    expect(problems).toEqual([]);
    expect(html).toContain('Offline judge: &#96;lexical&#96; numbers are a smoke test');
    expect(html).toContain(
      '<dt>judges</dt><dd>answerability: lexical (offline); correctness: lexical (offline)</dd>',
    );
    expect(html).toContain('<dt>tau_a</dt><dd>0.7</dd>');
    expect(html).toContain('seed 20240607, 2000 resamples');
    expect(html).toContain('<dt>test-split openings</dt><dd>0');
    // the conditioned baseline: 3 decks per audience, so a mean with an interval and n=3
    expect(html).toMatch(
      /<b>0\.\d{3}<\/b><br><span class="small muted">\[0\.\d{3}, [01]\.\d{3}\] n=3<\/span>/,
    );
    // the imported system has one deck: a value and n=1, no interval
    expect(html).toMatch(/<b>0\.444<\/b><br><span class="small muted">n=1<\/span>/);
    expect(html).toContain('Content-Security-Policy');
    expect((html.match(/<figure class="plot"/g) ?? []).length).toBe(9);
    expect((html.match(/<details class="deck"/g) ?? []).length).toBe(13);
    expect(html).not.toContain(dir); // relocatable: no absolute path of the data folder
  });

  it('is byte-identical on a rebuild, which reads every thumbnail from the cache', async () => {
    const out = join(dataDir, 'runs', 'demo', 'summary', 'report.html');
    const first = await buildRunReport({ dataDir, run: 'demo', out });
    expect(first.thumbnails.decks).toBe(13);
    expect(first.thumbnails.rendered + first.thumbnails.cached).toBe(13);
    const second = await buildRunReport({ dataDir, run: 'demo' });
    expect(second.thumbnails).toMatchObject({ rendered: 0, cached: 13, without: 0 });
    expect(second.html).toBe(first.html);
    expect(await readFile(out, 'utf8')).toBe(first.html);
    // every slide of every deck is a thumbnail (none fell back to its text)
    const slides = (first.html.match(/<figure class="slide"/g) ?? []).length;
    expect(slides).toBeGreaterThan(80);
    expect((first.html.match(/<img src="data:image\/webp;base64,/g) ?? []).length).toBe(slides);
    expect(first.html).not.toContain('class="text-card"');
  }, 300_000);

  it('still builds, with a note, when LibreOffice is missing', async () => {
    const { html, thumbnails } = await buildRunReport({
      dataDir,
      run: 'demo',
      cacheDir: join(dir, 'empty-cache'),
      env: { PATH: '' },
    });
    // the imported PDF deck renders without LibreOffice; the twelve PPTX decks get the note
    expect(thumbnails).toMatchObject({ decks: 13, rendered: 1, without: 12 });
    expect(html).toContain('rendering PPTX needs LibreOffice');
    expect((html.match(/<div class="text-card">/g) ?? []).length).toBeGreaterThan(70);
  }, 120_000);

  it('records a malformed artifact as a problem of its row and reports every other row', async () => {
    const copy = join(dir, 'corrupt');
    await cp(dataDir, copy, { recursive: true });
    const scores = join(
      copy,
      'runs/demo/evaluations/xsb-baseline/audience_conditioned/learners/cs_raft_consensus/probe_scores.jsonl',
    );
    await writeFile(scores, `${(await readFile(scores, 'utf8')).split('\n')[0]}\n{"probe_id": oops\n`);
    const { html, problems } = await buildRunReport({ dataDir: copy, run: 'demo', thumbnails: 'off' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('probe_scores.jsonl:2');
    expect(html).toContain('Problems (1)');
    expect((html.match(/<details class="deck"/g) ?? []).length).toBe(13);
  }, 120_000);
});

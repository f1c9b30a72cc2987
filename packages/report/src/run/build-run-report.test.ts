import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BenchLayout, discoverBenchCases, runBench, splitCases } from '@xsb/bench';
import { makeFastTempDir } from '@xsb/bench/testing';
import { RunLayout, writeJson } from '@xsb/core';
import { DESIGN_FILE, designRecordSchema, measureDeckDesign, runDesign } from '@xsb/design';
import { buildColoredTextPptx } from '@xsb/design/testing';
import { runDemo } from '@xsb/eval';
import { copyOfflineDemo } from '@xsb/eval/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturesDir } from '../testing';
import { buildRunReport } from './build-run-report';

let dir: string;
let cleanup: () => Promise<void>;
let dataDir: string;

beforeAll(async () => {
  ({ dir, cleanup } = await makeFastTempDir('xsb-report-run-'));
  ({ dataDir } = await copyOfflineDemo(join(dir, 'demo')));
}, 300_000);
afterAll(() => cleanup());

describe('buildRunReport', () => {
  it('says what was measured, with n and interval beside every mean', async () => {
    const { html, problems } = await buildRunReport({ dataDir, run: 'demo', thumbnails: 'off' });
    expect(problems).toEqual([]);
    // the summary's own sentence, above everything else
    expect(html).toMatch(
      /<h2>What was measured<\/h2>\n<div class="warning" role="note">Offline judges \(lexical\) are a smoke test/,
    );
    expect(html).toContain('the median deck of the group has fewer than 10 included probes');
    expect(html).toContain(
      `<dt>judges</dt><dd>${['answerability', 'correctness', 'probes', 'weights'].map((stage) => `${stage}: lexical (offline, no model: deterministic)`).join('; ')}</dd>`,
    );
    expect(html).toContain('<dt>tau_a</dt><dd>0.7</dd>');
    expect(html).toContain('seed 20240607, 2000 resamples');
    expect(html).toContain('<dt>test-split openings</dt><dd>0');
    // the conditioned baseline: 3 decks per audience, so a mean with an interval and n=3
    expect(html).toMatch(
      /<b>0\.\d{3}<\/b><br><span class="small muted">\[0\.\d{3}, [01]\.\d{3}\] n=3<\/span>/,
    );
    // the imported system has one deck: a value and n=1, no interval. 0.333 since the lexical judge counts
    // a number only beside one of its probe's terms: the cover's "Briefing deck, 2024" no longer answers
    // "On the coldest recorded day, 12 January ____" (it was 0.444).
    expect(html).toMatch(/<b>0\.333<\/b><br><span class="small muted">n=1<\/span>/);
    expect(html).toContain('Content-Security-Policy');
    expect((html.match(/<figure class="plot"/g) ?? []).length).toBe(9);
    expect((html.match(/<details class="deck"/g) ?? []).length).toBe(13);
    expect(html).not.toContain(dir); // relocatable: no absolute path of the data folder
  });

  it('names a replay judge with its model and store, the stored split and every test-split opening', async () => {
    const store = join(fixturesDir(), 'replay', 'demo.jsonl');
    const replay = await runDemo({ outDir: join(dir, 'replay'), judge: `replay:${store}` });
    const { cases } = await discoverBenchCases(replay.dataDir);
    await splitCases(new BenchLayout(replay.dataDir), cases, { testShare: 0.34 });
    await runBench({ dataDir: replay.dataDir, pipelineRun: 'demo', split: 'test', unsealTest: true });
    const { html, problems } = await buildRunReport({
      dataDir: replay.dataDir,
      run: 'demo',
      thumbnails: 'off',
    });
    expect(problems).toEqual([]);
    const judge = `replay:${store} (replay, model xsb-demo-handwritten-judge, replay store ${store})`;
    expect(html).toContain(
      `<dt>judges</dt><dd>${['answerability', 'correctness', 'probes', 'weights'].map((stage) => `${stage}: ${judge}`).join('; ')}</dd>`,
    );
    expect(html).not.toContain('Offline judge');
    expect(html).toMatch(/<dt>split<\/dt><dd>3 cases: dev 2, test 1, not in the stored split 0 /);
    expect(html).toContain('<dt>test-split openings</dt><dd>1 (bench/test_ledger.jsonl)</dd>');
    expect(html).toContain(
      '<dt>git</dt><dd>not in a git repository — read when this report was built; the results do not record it</dd>',
    );
  }, 300_000);

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

  it('makes the thumbnails of a deck the design metrics rendered from their renders, with no LibreOffice', async () => {
    const copy = join(dir, 'shared-renders');
    await cp(dataDir, copy, { recursive: true });
    const rows = await runDesign({
      layout: new RunLayout(copy),
      run: 'demo',
      filters: {
        systems: ['xsb-baseline'],
        conditions: ['audience_conditioned'],
        audiences: ['learners'],
        cases: ['cs_raft_consensus'],
      },
    });
    expect(rows.map((row) => row.status)).toEqual(['done']);
    const { html, thumbnails } = await buildRunReport({
      dataDir: copy,
      run: 'demo',
      cacheDir: join(dir, 'shared-renders-cache'),
      env: { PATH: '' },
    });
    // the PDF deck (pdf.js) and the PPTX deck the design stage rendered; the other eleven PPTX decks get the note
    expect(thumbnails).toMatchObject({ decks: 13, rendered: 2, without: 11 });
    const deckId = /href="#(deck-\d+)">xsb-baseline__audience_conditioned · cs_raft_consensus/.exec(
      html,
    )![1]!;
    const start = html.indexOf(`<details class="deck" id="${deckId}">`);
    const drill = html.slice(start, html.indexOf('</details>', start));
    expect(drill).toContain('<img src="data:image/webp;base64,');
    expect(drill).not.toContain('class="text-card"');
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

  it('names the deck and the slide whose text reads under 3:1, and not the slide in black', async () => {
    const copy = join(dir, 'design');
    await cp(dataDir, copy, { recursive: true });
    const deck = join(dir, 'grey-then-black.pptx');
    const words = 'Words a reader has to read from the back of the room';
    await writeFile(
      deck,
      buildColoredTextPptx([
        { title: 'Grey', body: words, color: 'D3D3D3' },
        { title: 'Black', body: words, color: '000000' },
      ]),
    );
    const design = await measureDeckDesign(deck);
    const job = join(
      copy,
      'runs/demo/evaluations/xsb-baseline/audience_conditioned/learners/cs_raft_consensus',
    );
    await writeJson(join(job, DESIGN_FILE), designRecordSchema, design);
    const { html, problems } = await buildRunReport({ dataDir: copy, run: 'demo', thumbnails: 'off' });
    expect(problems).toEqual([]);
    expect(html).toContain('<h2>Design (1 deck)</h2>');
    expect(html).toMatch(
      /xsb-baseline__audience_conditioned · cs_raft_consensus<\/a>.*<span class="badge b-bad">slide 1<\/span>/s,
    );
    const deckId = /href="#(deck-\d+)">xsb-baseline__audience_conditioned · cs_raft_consensus/.exec(
      html,
    )![1]!;
    const start = html.indexOf(`<details class="deck" id="${deckId}">`);
    const drill = html.slice(start, html.indexOf('</details>', start));
    expect(drill).toContain('<dd>text under 3:1: slide 1; mean colorfulness');
    expect(drill).toMatch(
      /<figure class="slide flagged" data-slide="1">.*⚠ text under 3:1 \(1\.\d\d:1\)<\/figcaption>/s,
    );
    expect(drill).toMatch(/<figure class="slide" data-slide="2">/);
    expect(drill).toContain('<h4>Design per slide (2 slides)</h4>');
    // Every other deck has no design.json: no section row, no flag.
    expect((html.match(/class="slide flagged"/g) ?? []).length).toBe(1);
  }, 120_000);
});

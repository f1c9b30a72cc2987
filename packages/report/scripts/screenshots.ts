/**
 * The report screenshots (`pnpm --filter @xsb/report screenshots [OUT_DIR]`, default docs/images): the
 * demo's report at 1400×900 (its top, and a deck drill-down after a click on a probe), and the forest plot
 * of a bench run over the bench fixtures; PNGs palette-quantised with sharp to stay small. docs/ keeps
 * the first two.
 */
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { BenchLayout, discoverBenchCases, runBench, splitCases } from '@xsb/bench';
import { makeFastTempDir } from '@xsb/bench/testing';
import { runDemo } from '@xsb/eval';
import sharp from 'sharp';
import { buildBenchReport, buildRunReport } from '../src/index';
import { fixturesDir, launchHeadlessBrowser } from '../src/testing';

const outDir = resolve(process.argv[2] ?? join(fixturesDir(), '..', 'docs', 'images'));
const { dir, cleanup } = await makeFastTempDir('xsb-report-shots-');
const browser = await launchHeadlessBrowser();

async function save(png: Buffer, name: string): Promise<void> {
  const small = await sharp(png)
    .png({ palette: true, quality: 80, compressionLevel: 9, effort: 10 })
    .toBuffer();
  await writeFile(join(outDir, name), small);
  console.log(`${join(outDir, name)}: ${(small.length / 1024).toFixed(0)} KB`);
}

try {
  const demo = await runDemo({ outDir: join(dir, 'demo') });
  const runReport = join(dir, 'run.html');
  await buildRunReport({ dataDir: demo.dataDir, run: 'demo', out: runReport });
  const opened = await browser.open(runReport);
  await save(await opened.page.screenshot(), 'report-top.png');
  const wanted =
    'tr[data-slides="3"][data-f-system="xsb-baseline__audience_conditioned"][data-f-included="included"][data-f-covered="covered"]';
  const row = opened.page.locator(`#probes-table tbody ${wanted}`).first();
  await row.click();
  const deckId = await row.getAttribute('data-deck');
  const label = await row.getAttribute('data-label');
  const inDeck = opened.page
    .locator(`#${deckId} table[id$="-probes"] tbody tr[data-label="${label}"]`)
    .first();
  await inDeck.click();
  // the slide strip is sticky: with the clicked row mid-screen, both are in view
  await inDeck.evaluate((element) => element.scrollIntoView({ block: 'center' }));
  await save(await opened.page.screenshot(), 'report-drill-down.png');

  const bench = await runDemo({
    outDir: join(dir, 'bench'),
    sourcesDir: join(fixturesDir(), 'bench', 'sources'),
  });
  const { cases } = await discoverBenchCases(bench.dataDir);
  await splitCases(new BenchLayout(bench.dataDir), cases, { testShare: 0.3 });
  const run = await runBench({ dataDir: bench.dataDir, pipelineRun: 'demo' });
  const benchReport = join(dir, 'bench.html');
  await buildBenchReport({ dir: run.dir, out: benchReport });
  const benchPage = await browser.open(benchReport);
  await benchPage.page.locator('#comparisons').scrollIntoViewIfNeeded();
  await benchPage.page.evaluate(() =>
    document.getElementById('comparisons')?.scrollIntoView({ block: 'start' }),
  );
  await benchPage.page.evaluate(() => window.scrollBy(0, -40));
  await save(await benchPage.page.screenshot(), 'report-bench-forest.png');
} finally {
  await browser.close();
  await cleanup();
}

/// <reference lib="dom" />
import { join } from 'node:path';
import { BenchLayout, discoverBenchCases, runBench, splitCases } from '@xsb/bench';
import { makeFastTempDir } from '@xsb/bench/testing';
import { runDemo } from '@xsb/eval';
import { copyOfflineDemo } from '@xsb/eval/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBenchReport } from './bench/build-bench-report';
import { buildRubricReport } from './rubric/build-rubric-report';
import { buildRunReport } from './run/build-run-report';
import {
  chromiumUnavailableReason,
  type HeadlessBrowser,
  HOSTILE_TEXT,
  launchHeadlessBrowser,
  type OpenedReport,
  prepareRubricResults,
  writeHostileSources,
} from './testing';

const skipReason = chromiumUnavailableReason();
let dir: string;
let cleanup: () => Promise<void>;
let browser: HeadlessBrowser;
const files = { run: '', bench: '', rubric: '', hostile: '' };

beforeAll(async () => {
  if (skipReason) return;
  ({ dir, cleanup } = await makeFastTempDir('xsb-report-browser-'));
  const { dataDir } = await copyOfflineDemo(join(dir, 'demo'));
  files.run = join(dir, 'run.html');
  await buildRunReport({ dataDir, run: 'demo', out: files.run });
  const { cases } = await discoverBenchCases(dataDir);
  await splitCases(new BenchLayout(dataDir), cases, { testShare: 0 });
  const bench = await runBench({ dataDir, pipelineRun: 'demo', configs: 'factorial', factors: ['claims'] });
  files.bench = join(dir, 'bench.html');
  await buildBenchReport({ dir: bench.dir, out: files.bench });
  files.rubric = join(dir, 'rubric.html');
  await buildRubricReport({ dir: await prepareRubricResults(dir), out: files.rubric });
  const hostile = await runDemo({ outDir: join(dir, 'hostile'), sourcesDir: await writeHostileSources(dir) });
  files.hostile = join(dir, 'hostile.html');
  await buildRunReport({ dataDir: hostile.dataDir, run: 'demo', out: files.hostile, thumbnails: 'off' });
  browser = await launchHeadlessBrowser();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await cleanup?.();
});

/** The checks every report must pass: nothing logged as an error, nothing fetched, every plot drawn. */
async function expectCleanPage(opened: OpenedReport, plots: number): Promise<void> {
  expect(opened.errors).toEqual([]);
  expect(opened.requests).toEqual([]);
  expect(opened.dialogs).toEqual([]);
  const marks = await opened.page.$$eval('figure[data-plot]', (figures) =>
    figures.map((figure) =>
      Array.from(figure.querySelectorAll('svg .role-mark')).reduce(
        (sum, group) => sum + group.children.length,
        0,
      ),
    ),
  );
  expect(marks.length).toBeGreaterThanOrEqual(plots);
  for (const count of marks) expect(count).toBeGreaterThan(0);
}

const visibleRows = (page: Page, table: string) =>
  page.$$eval(`#${table} tbody tr`, (rows) => rows.filter((row) => !(row as HTMLElement).hidden).length);

describe.skipIf(skipReason !== null)(
  `reports in headless Chromium${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    it('run report: clean page, a probe click shows its slide, filters and sorting work', async () => {
      const opened = await browser.open(files.run);
      const { page } = opened;
      await expectCleanPage(opened, 9);
      expect(await page.locator('details.deck img').count()).toBeGreaterThan(80);

      const row = page.locator('#probes-table tbody tr[data-slides="3"]').first();
      const deckId = await row.getAttribute('data-deck');
      expect(await page.locator(`#${deckId}`).evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
      await row.click();
      const deck = page.locator(`#${deckId}`);
      expect(await deck.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
      expect(
        await deck.locator('.slide.highlight').evaluateAll((s) => s.map((e) => e.getAttribute('data-slide'))),
      ).toEqual(['3']);
      expect(await deck.locator('.slide.highlight').isVisible()).toBe(true);
      expect(await deck.locator('.slide-note').textContent()).toMatch(/: slide 3$/);

      // inside the deck: a claim row highlights its own slide and only that one
      const claim = deck.locator('table[id$="-claims"] tbody tr[data-slides="1"]').first();
      await claim.click();
      expect(
        await deck.locator('.slide.highlight').evaluateAll((s) => s.map((e) => e.getAttribute('data-slide'))),
      ).toEqual(['1']);

      const total = await visibleRows(page, 'probes-table');
      await page.selectOption(
        '.filters[data-table="probes-table"] select[data-filter="covered"]',
        'not covered',
      );
      const uncovered = await visibleRows(page, 'probes-table');
      expect(uncovered).toBeGreaterThan(0);
      expect(uncovered).toBeLessThan(total);
      expect(
        await page.$$eval('#probes-table tbody tr', (rows) =>
          rows
            .filter((r) => !(r as HTMLElement).hidden)
            .every((r) => r.getAttribute('data-f-covered') === 'not covered'),
        ),
      ).toBe(true);
      expect(await page.locator('.filters[data-table="probes-table"] .filter-count').textContent()).toBe(
        `${uncovered} of ${total} rows`,
      );

      const coverage = page.locator('#evaluations-table thead th', { hasText: 'coverage' });
      await coverage.click();
      const sorted = await page.$$eval('#evaluations-table tbody tr', (rows) =>
        rows.map((r) => Number((r as HTMLTableRowElement).cells[4]?.getAttribute('data-value'))),
      );
      expect(sorted).toEqual([...sorted].sort((a, b) => a - b));
      await page.close();
    });

    it('bench report: clean page with a forest plot marking verdicts and Shapley bars', async () => {
      const opened = await browser.open(files.bench);
      await expectCleanPage(opened, 2);
      const forest = await opened.page.locator('#comparisons figure[data-plot]').count();
      expect(forest).toBeGreaterThan(0);
      expect(await opened.page.locator('#comparisons svg').first().textContent()).toMatch(/verdict/);
      expect(await opened.page.locator('#shapley figure[data-plot]').count()).toBe(1);
      const total = await visibleRows(opened.page, 'comparisons-table');
      await opened.page.selectOption(
        '.filters[data-table="comparisons-table"] select[data-filter="metric"]',
        'coverage',
      );
      expect(await visibleRows(opened.page, 'comparisons-table')).toBeLessThan(total);
      await opened.page.close();
    });

    it('rubric report: clean page, an item click highlights the slides its explanation cites', async () => {
      const opened = await browser.open(files.rubric);
      await expectCleanPage(opened, 1);
      const item = opened.page.locator('table[id$="-items"] tbody tr[data-slides="2 3"]').first();
      const deck = opened.page.locator('details.deck', { has: item }).first();
      await deck.locator('summary').click();
      await item.click();
      expect(
        await deck.locator('.slide.highlight').evaluateAll((s) => s.map((e) => e.getAttribute('data-slide'))),
      ).toEqual(['2', '3']);
      expect(await deck.locator('table[id$="-layout"] tbody tr').count()).toBeGreaterThan(0);
      await opened.page.close();
    });

    it('a deck whose text holds script markup shows it as text and runs nothing', async () => {
      const opened = await browser.open(files.hostile);
      await expectCleanPage(opened, 0);
      expect(
        await opened.page.evaluate(() => (window as unknown as { __xsbInjected?: number }).__xsbInjected),
      ).toBeUndefined();
      // open every deck so the text cards and tables with the markup are rendered
      await opened.page.$$eval('details', (all) =>
        all.forEach((d) => {
          (d as HTMLDetailsElement).open = true;
        }),
      );
      await opened.page.waitForTimeout(200);
      expect(opened.dialogs).toEqual([]);
      expect(await opened.page.locator('main').textContent()).toContain(
        '<script>window.__xsbInjected = 1; alert(1)</script>',
      );
      expect(await opened.page.locator('main script, main img[src="x"], main svg[onload]').count()).toBe(0);
      expect(HOSTILE_TEXT).toContain('onerror');
      await opened.page.close();
    });
  },
);

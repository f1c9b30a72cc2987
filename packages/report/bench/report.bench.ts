/**
 * Figures of @xsb/report (`pnpm --filter @xsb/report bench`): build time and file size of the HTML report
 * for the demo run and for a synthetic run of 20 decks × 15 slides, with thumbnails rendered (fresh
 * cache), read from the cache, large, and off.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makeFastTempDir } from '@xsb/bench/testing';
import { runDemo } from '@xsb/eval';
import { buildRunReport } from '../src/index';
import { runReportCacheDir } from '../src/run/build-run-report';
import { prepareSyntheticRun } from '../src/testing';
import type { ThumbnailSize } from '../src/thumbnails/slide-thumbnails';

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

async function measure(
  label: string,
  dataDir: string,
  run: string,
  thumbnails: ThumbnailSize,
  fresh: boolean,
) {
  if (fresh) await rm(runReportCacheDir(dataDir, run), { recursive: true, force: true });
  const started = performance.now();
  const result = await buildRunReport({
    dataDir,
    run,
    thumbnails,
    out: join(dataDir, `${run}-${thumbnails}.html`),
  });
  const seconds = (performance.now() - started) / 1000;
  const t = result.thumbnails;
  console.log(
    `${label.padEnd(44)} ${seconds.toFixed(1).padStart(6)} s  ${mb(result.bytes).padStart(9)}  (${t.decks} decks: ${t.rendered} rendered, ${t.cached} cached, ${t.without} without)`,
  );
}

const { dir, cleanup } = await makeFastTempDir('xsb-report-bench-');
try {
  const { dataDir } = await runDemo({ outDir: join(dir, 'demo') });
  console.log('demo run (13 decks, 84 slides, 21 evaluations):');
  await measure('  small thumbnails, fresh cache', dataDir, 'demo', 'small', true);
  await measure('  small thumbnails, cached', dataDir, 'demo', 'small', false);
  await measure('  thumbnails off', dataDir, 'demo', 'off', false);
  const synthetic = await prepareSyntheticRun(join(dir, 'synthetic'), { decks: 20, slides: 15 });
  console.log('synthetic run (20 decks × 15 slides, 60 evaluations):');
  await measure('  small thumbnails, fresh cache', synthetic, 'synthetic', 'small', true);
  await measure('  small thumbnails, cached', synthetic, 'synthetic', 'small', false);
  await measure('  large thumbnails, fresh cache', synthetic, 'synthetic', 'large', true);
  await measure('  thumbnails off', synthetic, 'synthetic', 'off', false);
} finally {
  await cleanup();
}

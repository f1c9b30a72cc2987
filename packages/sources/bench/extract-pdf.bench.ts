/**
 * unpdf extraction speed over the shared PDF corpus (../shared/corpus/pdf) and the repository's PDF
 * fixture: ms per page (warm, median of several runs per file) and peak RSS. Files that must fail
 * (encrypted, no text layer) are timed until they fail.
 * Run: `pnpm --filter @xsb/sources bench` (or `npx tsx bench/extract-pdf.bench.ts`).
 */
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractPdfPages } from '../src/extract-pdf-text';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, '../../..');
const corpusDir = join(repoRoot, '../shared/corpus/pdf');
const files: string[] = [join(repoRoot, 'fixtures/sources/energy_heat_pump_pilot/source.pdf')];
if (existsSync(corpusDir)) {
  for (const name of readdirSync(corpusDir).sort())
    if (name.endsWith('.pdf')) files.push(join(corpusDir, name));
} else {
  console.log(`(no corpus at ${corpusDir}: timing the fixture only)`);
}

const RUNS = 5;
let totalPages = 0;
let totalMs = 0;
console.log('file                                   pages   ms/page   result');
for (const file of files) {
  const bytes = new Uint8Array(await readFile(file));
  const times: number[] = [];
  let pages = 0;
  let outcome = 'ok';
  for (let run = 0; run <= RUNS; run++) {
    const started = performance.now();
    try {
      pages = (await extractPdfPages(bytes, file)).pages.length;
    } catch (error) {
      outcome = `fails: ${(error as Error).message.replace(`${file}: `, '').slice(0, 48)}`;
    }
    // Run 0 warms pdf.js up (font tables, JIT) and is not counted.
    if (run > 0) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  const perPage = pages > 0 ? median / pages : median;
  if (pages > 0) {
    totalPages += pages;
    totalMs += median;
  }
  const name = file.split('/').pop()!;
  console.log(
    `${name.padEnd(38)} ${String(pages).padStart(5)} ${perPage.toFixed(2).padStart(9)}   ${outcome}`,
  );
}
const peakRssMb = process.resourceUsage().maxRSS / 1024;
console.log(
  `\ntotal: ${totalPages} pages in ${totalMs.toFixed(0)} ms = ${(totalMs / totalPages).toFixed(2)} ms/page (median of ${RUNS} warm runs per file)`,
);
console.log(`peak RSS: ${peakRssMb.toFixed(0)} MB`);

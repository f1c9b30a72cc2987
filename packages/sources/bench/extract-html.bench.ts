/**
 * HTML → text speed (parse5 + the reading-region walk): real pages from fixtures/, a large page made by
 * repeating a real chapter, and hostile inputs at n, 2n and 4n so that their growth shows (t(4n)/t(n)
 * is about 4 for linear work and 16 for quadratic work; the old regex extractor took 33 s on 100,000
 * unterminated `<a `). Each figure is the median of several runs, after warm-up runs.
 * Run: `pnpm --filter @xsb/sources bench` (or `npx tsx bench/extract-html.bench.ts`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { htmlToText } from '../src/extract-html-text';

const repoRoot = join(import.meta.dirname, '../../..');

function medianMs(html: string, runs: number, warmUps = 1): number {
  for (let run = 0; run < warmUps; run += 1) htmlToText(html);
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    htmlToText(html);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

const pages = [
  'fixtures/sources-html/mdbook-strict-path-getting-started.html',
  'fixtures/sources-html/mdbook-azure-workload-identity-concepts.html',
  'fixtures/sources/ocean_coral_bleaching/source.html',
];
console.log('real pages                                         KB      ms/page   text chars');
for (const page of pages) {
  const html = readFileSync(join(repoRoot, page), 'utf8');
  const ms = medianMs(html, 21, 10);
  console.log(
    `${page.padEnd(68)} ${(html.length / 1024).toFixed(0).padStart(4)} ${ms.toFixed(2).padStart(9)}   ${htmlToText(html).length}`,
  );
}

const chapterPage = readFileSync(join(repoRoot, pages[0]!), 'utf8');
const chapter = chapterPage
  .slice(chapterPage.indexOf('<main>') + 6, chapterPage.indexOf('</main>'))
  .replace(/^/, '<section>')
  .concat('</section>');
console.log('\nlarge pages (the chapter repeated)   MB      ms      MB/s   peak RSS MB');
for (const megabytes of [1, 8]) {
  const html = `<html><body><main>${chapter.repeat(Math.ceil((megabytes * 1e6) / chapter.length))}</main></body></html>`;
  const ms = medianMs(html, 3);
  console.log(
    `${''.padEnd(36)} ${(html.length / 1e6).toFixed(1).padStart(4)} ${ms.toFixed(0).padStart(7)} ${((html.length / 1e6 / ms) * 1000).toFixed(1).padStart(8)} ${(process.resourceUsage().maxRSS / 1024).toFixed(0).padStart(12)}`,
  );
}

const hostile: Record<string, (n: number) => string> = {
  'unterminated <a ': (n) => `<p>kept</p>${'<a '.repeat(n)}`,
  'nested <div>': (n) => `${'<div>'.repeat(n)}x${'</div>'.repeat(n)}`,
  'nested <div>, stray </span>': (n) => `${'<div>'.repeat(n)}x${'</span>'.repeat(n)}`,
  'nested [hidden]': (n) => `<p>a</p>${'<div hidden>'.repeat(n)}x${'</div>'.repeat(n)}`,
  'nested <main>': (n) => `${'<main>'.repeat(n)}x${'</main>'.repeat(n)}`,
  'misnested <b><i>': (n) => `${'<b><i>'.repeat(n / 2)}x${'</b></i>'.repeat(n / 2)}`,
  'unclosed <b> in <p>': (n) => `<p>${'<b>x'.repeat(n)}${'</p>'.repeat(n)}`,
  '<table> of stray <td>': (n) => `<table>${'<td>x'.repeat(n)}`,
  'one tag, many attributes': (n) => `<div ${'a="1" '.repeat(n)}>x</div>`,
  'permalink anchors': (n) => `<main>${'<h2>T<a href="#t">¶</a></h2>'.repeat(n / 4)}</main>`,
  'unclosed <!--': (n) => `<p>x</p>${'<!-'.repeat(n)}`,
};
const n = Number(process.env.BENCH_HOSTILE_N ?? 25_000);
console.log(`\nhostile inputs (n = ${n})               t(n) ms  t(2n) ms  t(4n) ms  t(4n)/t(n)`);
for (const [name, make] of Object.entries(hostile)) {
  const times = [n, 2 * n, 4 * n].map((size) => medianMs(make(size), 3));
  console.log(
    `${name.padEnd(36)} ${times.map((t) => t.toFixed(0).padStart(9)).join(' ')} ${(times[2]! / Math.max(times[0]!, 0.5)).toFixed(1).padStart(11)}`,
  );
}

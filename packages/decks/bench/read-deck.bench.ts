/**
 * Deck reading throughput on the shared corpus: ms per slide (PPTX) and per page (PDF), warm, plus
 * peak RSS. Run with `pnpm --filter @xsb/decks bench`. Skips with a message when the corpus is absent.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readDeck } from '../src/read-deck';

const corpus = resolve(import.meta.dirname, '../../../../shared/corpus');
const fixtures = resolve(import.meta.dirname, '../../../fixtures/decks');
const ROUNDS = 5;

interface Row {
  file: string;
  slides: number;
  msPerDeck: number;
}

async function measure(file: string): Promise<Row | undefined> {
  try {
    const deck = await readDeck(file);
    const started = performance.now();
    for (let round = 0; round < ROUNDS; round++) await readDeck(file);
    return { file, slides: deck.slide_count, msPerDeck: (performance.now() - started) / ROUNDS };
  } catch (error) {
    console.log(`  ${file}: not readable (${(error as Error).message.split(': ').slice(1).join(': ')})`);
    return undefined;
  }
}

function report(label: string, unit: string, rows: Row[]): void {
  console.log(`\n${label}`);
  for (const row of rows) {
    const perSlide = row.slides > 0 ? (row.msPerDeck / row.slides).toFixed(2) : '-';
    console.log(
      `  ${row.file.split('/').pop()?.padEnd(40)} ${String(row.slides).padStart(4)} ${unit}s  ${row.msPerDeck.toFixed(1).padStart(8)} ms/deck  ${perSlide.padStart(7)} ms/${unit}`,
    );
  }
  const slides = rows.reduce((sum, row) => sum + row.slides, 0);
  const ms = rows.reduce((sum, row) => sum + row.msPerDeck, 0);
  console.log(
    `  total: ${slides} ${unit}s in ${ms.toFixed(1)} ms → ${(ms / Math.max(1, slides)).toFixed(2)} ms/${unit}`,
  );
}

const groups: Array<[string, string, string[]]> = [];
if (existsSync(corpus)) {
  for (const [folder, unit] of [
    ['pptx', 'slide'],
    ['pdf', 'page'],
  ] as const) {
    const dir = join(corpus, folder);
    groups.push([
      `corpus/${folder}`,
      unit,
      readdirSync(dir)
        .sort()
        .map((name) => join(dir, name)),
    ]);
  }
} else {
  console.log(`(skipping the shared corpus: ${corpus} is absent)`);
}
groups.push([
  'fixtures/decks',
  'slide',
  [join(fixtures, 'cs_raft_consensus.baseline.pptx'), join(fixtures, 'notebooklm', 'cs_raft_consensus.pdf')],
]);

for (const [label, unit, files] of groups) {
  const rows: Row[] = [];
  for (const file of files) {
    const row = await measure(file);
    if (row) rows.push(row);
  }
  report(label, unit, rows);
}
console.log(
  `\npeak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB (${ROUNDS} warm reads per deck after one cold read)`,
);

// Streams a 1,000,000-row probe-score JSONL file through the built readJsonl (parse + zod
// validation per row) and prints rows/s and peak RSS. Runs the shipped dist/ with plain node,
// as users run it; the streaming happens in a child process so its peak RSS is the reader's own,
// not the file generator's. The issue's bar: peak RSS under 150 MB.
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probeScoreSchema, readJsonl } from '../dist/index.js';

const rows = Number(process.env.XSB_BENCH_ROWS ?? 1_000_000);
const streamOnly = process.env.XSB_BENCH_STREAM_FILE;

if (streamOnly) {
  const started = performance.now();
  let count = 0;
  let covered = 0;
  for await (const row of readJsonl(streamOnly, probeScoreSchema)) {
    count += 1;
    if (row.covered) covered += 1;
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ count, covered, seconds, peakRssKb: process.resourceUsage().maxRSS }));
  process.exit(0);
}

const dir = await mkdtemp(join(tmpdir(), 'xsb-bench-'));
const file = join(dir, 'probe_scores.jsonl');
const fd = openSync(file, 'w');
let buffer = '';
for (let i = 0; i < rows; i++) {
  buffer += `${JSON.stringify({
    probe_id: `pb_${i}`,
    covered: i % 3 !== 0,
    answer: `Deck-supported answer number ${i} with a few more words of text.`,
    cited_evidence: `Slide ${(i % 40) + 1}`,
    metadata: { confidence: (i % 100) / 100, judge: 'lexical' },
  })}\n`;
  if (buffer.length > 1 << 20) {
    writeSync(fd, buffer);
    buffer = '';
  }
}
writeSync(fd, buffer);
closeSync(fd);
const size = (await stat(file)).size;

const output = execFileSync(process.execPath, [process.argv[1]], {
  env: { ...process.env, XSB_BENCH_STREAM_FILE: file },
  encoding: 'utf8',
});
const { count, covered, seconds, peakRssKb } = JSON.parse(output.trim().split('\n').at(-1));
const peakMb = peakRssKb / 1024;
console.log(
  `jsonl stream: ${count.toLocaleString('en')} rows (${(size / 1e6).toFixed(0)} MB), ${covered} covered`,
);
console.log(
  `  ${Math.round(count / seconds).toLocaleString('en')} rows/s, ${((seconds * 1e6) / count).toFixed(2)} µs/row, ${seconds.toFixed(2)} s`,
);
console.log(`  peak RSS of the streaming process ${peakMb.toFixed(1)} MB (bar: < 150 MB)`);
await rm(dir, { recursive: true, force: true });
if (count !== rows || peakMb >= 150) process.exitCode = 1;

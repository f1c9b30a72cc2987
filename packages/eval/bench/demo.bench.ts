/**
 * The demo end to end (stages 1–7, lexical judges) cold and warm, plus the lexical answerability hot
 * path. Prints wall times, judge calls and peak RSS. Run: pnpm --filter @xsb/eval bench
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDemo } from '../src/index';
import { judgeAnswerabilityLexically } from '../src/judge-answerability-lexically';
import { makeDeck } from '../src/testing';

let peakRss = process.memoryUsage().rss;
const sample = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 5);

const dir = await mkdtemp(join(tmpdir(), 'xsb-demo-bench-'));
try {
  for (const label of ['cold', 'warm']) {
    const started = performance.now();
    const result = await runDemo({ outDir: dir });
    const ms = performance.now() - started;
    console.log(
      `runDemo ${label}: ${(ms / 1000).toFixed(2)} s, ${result.evaluations.length} jobs, ${result.judgeCalls} judge calls`,
    );
    for (const timing of result.timings)
      console.log(`  ${timing.stage.padEnd(24)} ${(timing.ms / 1000).toFixed(2)} s  ${timing.note}`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

const deck = makeDeck(
  Array.from(
    { length: 40 },
    (_, i) => `Slide ${i}\nHeat pumps cut energy use by ${i} percent in ${i * 7} homes across the region`,
  ),
);
const probes = Array.from({ length: 2000 }, (_, i) => ({
  probe_id: `pb_${i}`,
  source_case_id: 'c',
  scene: 's',
  question: `How much energy did homes save in case ${i}?`,
  answer: `Energy use fell by ${i % 40} percent in ${(i % 40) * 7} homes.`,
  evidence: [],
  level: 1,
  modality: 'text',
  theme: 'result',
  metadata: {},
}));
const started = performance.now();
judgeAnswerabilityLexically(deck, probes);
const ms = performance.now() - started;
console.log(
  `lexical answerability: ${probes.length} probes x 40 slides in ${ms.toFixed(0)} ms (${(ms / probes.length).toFixed(3)} ms/probe)`,
);
clearInterval(sample);
console.log(`peak RSS ${(Math.max(peakRss, process.memoryUsage().rss) / 1024 / 1024).toFixed(0)} MiB`);

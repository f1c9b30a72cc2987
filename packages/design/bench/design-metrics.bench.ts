// Design metrics for a 20-slide deck, beyond its rendering (issue 24: under 2 s). Renders the NotebookLM
// fixture PDF once at 960 px, cycles its pages to 20 slides, then times the metrics alone and the render alone.
import { fileURLToPath } from 'node:url';
import { measureSlideDesign } from '../src/measure-slide-design';
import { renderSlideImages } from '../src/render-slide-images';
import { summarizeDeckDesign } from '../src/summarize-deck-design';

const deck = fileURLToPath(
  new URL('../../../fixtures/decks/notebooklm/cs_raft_consensus.pdf', import.meta.url),
);
const SLIDES = 20;
const ROUNDS = 5;
const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

const renderStart = process.hrtime.bigint();
const pages = await renderSlideImages(deck, 720);
const renderMs = ms(renderStart);
const slides = Array.from({ length: SLIDES }, (_, i) => pages[i % pages.length]!);
// A text box per slide the size of a body placeholder, so contrast is measured as on a real slide.
const boxes = [
  { x: 48, y: 40, width: 864, height: 80 },
  { x: 48, y: 150, width: 864, height: 320 },
];

const times: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const start = process.hrtime.bigint();
  summarizeDeckDesign(slides.map((image, i) => measureSlideDesign(image, boxes, i + 1)));
  times.push(ms(start));
}
times.sort((a, b) => a - b);
const { width, height } = pages[0]!;
console.log(`design metrics, ${SLIDES}-slide deck at ${width}×${height} px (${ROUNDS} rounds, one process)`);
console.log(
  `  metrics only: median ${times[Math.floor(ROUNDS / 2)]!.toFixed(0)} ms, min ${times[0]!.toFixed(0)} ms (target < 2000 ms)`,
);
console.log(`  per slide: ${(times[Math.floor(ROUNDS / 2)]! / SLIDES).toFixed(1)} ms`);
console.log(`  rendering ${pages.length} PDF pages once (pdf.js, for scale): ${renderMs.toFixed(0)} ms`);

/**
 * Token accounting and throughput for one deck of the appendix instance through the loopback fake
 * server (real SDK clients): how much of the input the prompt cache serves, calls per deck, ms per
 * item, and the layout checks' speed. Run: `pnpm --filter @xsb/rubric bench`.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { readDeck } from '@xsb/decks';
import { createLlmClient, judgeFromClient } from '@xsb/llm';
import { fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { cachedInputShare, evaluateDeck } from '../src/evaluate-deck';
import { runLayoutChecks } from '../src/layout-checks';
import { readMaterials } from '../src/read-materials';
import { loadRubricInstance } from '../src/rubric-instance';
import { writeLectureDeck } from '../src/write-layout-fixture-decks';

const APPENDIX = join(import.meta.dirname, '../../../fixtures/rubric/appendix-cs-overview-ch1/instance.yaml');

// A deterministic "judge": the verdict is a hash bit of the request text.
const server = await startFakeLlmServer({
  handler: ({ text }) => ({
    text: `Checked. \\boxed{${createHash('sha256').update(text).digest()[0]! % 3 === 0 ? 'no' : 'yes'}}`,
  }),
});
const temp = await makeTempDir('xsb-rubric-bench-');
let peakRss = process.memoryUsage().rss;
const sampleRss = (): void => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
};
try {
  const instance = await loadRubricInstance(APPENDIX);
  const materials = await readMaterials(instance.materials);
  for (const slides of [25, 40]) {
    const deck = await readDeck(await writeLectureDeck(temp.dir, slides));
    for (const judge of ['anthropic:claude-bench', 'openai:gpt-bench']) {
      const client = createLlmClient(judge, { env: fakeProviderEnv(server), noCache: true });
      const started = performance.now();
      const evaluation = await evaluateDeck({
        instance,
        deck,
        materials,
        judge: judgeFromClient(judge, client),
        maxAttempts: 1,
      });
      const ms = performance.now() - started;
      sampleRss();
      const usage = evaluation.usage;
      const sent = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
      const share = cachedInputShare(usage) ?? 0;
      console.log(
        `${judge.padEnd(24)} deck ${slides} slides (judged ${evaluation.judged_slide_count}): ${usage.calls} calls, ` +
          `${sent} input tokens of which ${usage.cache_read_tokens} cache reads = ${(share * 100).toFixed(1)}% served from the cached prefix; ` +
          `${(ms / usage.calls).toFixed(2)} ms/item`,
      );
    }
  }
  const big = await readDeck(await writeLectureDeck(temp.dir, 200));
  const rounds = 50;
  const started = performance.now();
  for (let round = 0; round < rounds; round += 1)
    runLayoutChecks(big, { slideRange: { min: 21, max: 35 }, language: 'en' });
  const perSlide = (performance.now() - started) / (rounds * big.slides.length);
  sampleRss();
  console.log(
    `layout checks: ${(perSlide * 1000).toFixed(1)} µs/slide (${big.slides.length}-slide deck, ${rounds} rounds)`,
  );
  console.log(`peak RSS ${(peakRss / 1024 / 1024).toFixed(0)} MiB`);
} finally {
  await server.close();
  await temp.cleanup();
}

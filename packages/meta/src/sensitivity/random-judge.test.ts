import { join } from 'node:path';
import { RunLayout, readJsonlAll } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { usageLedgerEntrySchema } from '@xsb/llm';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeAgreement } from '../agreement/compute-agreement';
import { readVerdictSet } from '../agreement/read-verdict-set';
import { perturbDeck } from '../perturb/perturb-deck';
import { randomJudgeReply } from '../testing';
import { runSensitivity } from './run-sensitivity';
import { TEST_ITEMS_PER_DIMENSION, writeRubricTestData } from './testing-rubric-data';

const DECKS = 40;
let dir: string;
let cleanup: () => Promise<void>;
let server: FakeLlmServer;

beforeAll(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-meta-random-'));
  server = await startFakeLlmServer({ handler: (request) => randomJudgeReply(request, 7) });
});
afterAll(async () => {
  await server.close();
  await cleanup();
});

/**
 * A judge that ignores the deck and answers at random, through the real OpenAI SDK against the fake
 * server. Whether its score "falls" on a shuffled deck is a coin that can also land on a tie:
 * P(fell) = (1 − P(tie)) / 2, about 0.48 for the rubric total (25 items), 0.38 for one dimension of 5
 * items, 0.40 for one holistic aspect and 0.44 for the holistic mean. Over 40 decks the standard error is
 * about 0.08, so each share must lie in [0.2, 0.7] (more than 2.5 standard errors around those values), and
 * none may be marked as really noticing the damage.
 */
describe('a judge that answers at random', () => {
  it('gets sensitivity near a coin flip and is never marked real', async () => {
    const dataDir = join(dir, 'data');
    const cases = await writeRubricTestData(dataDir, 'r', DECKS);
    const layout = new RunLayout(dataDir);
    for (const label of cases) {
      const deck = join(
        layout.deckDir({
          run: 'r',
          system: 'gen',
          condition: 'audience_agnostic',
          audience: 'all',
          caseLabel: label,
        }),
        `${label}.pptx`,
      );
      await perturbDeck({ deck, outDir: join(dir, 'p', label), kinds: ['shuffle_slides'], severities: [1] });
    }
    const { result } = await runSensitivity({
      dataDir,
      run: 'r',
      perturbations: [join(dir, 'p')],
      judge: 'openai:gpt-random',
      env: fakeProviderEnv(server),
      prices: { 'openai:gpt-random': { input: 1, output: 2 } },
      families: ['rubric', 'holistic'],
      resamples: 200,
    });
    expect(result.failures).toEqual([]);
    expect(result.offline).toBe(false);
    for (const evaluator of [
      'rubric.total',
      'rubric.fundamentals',
      'holistic.coherence',
      'holistic.overall',
    ]) {
      const row = result.summary.find(
        (item) => item.evaluator === evaluator && item.kind === 'shuffle_slides',
      )!;
      expect(row.expected).toBe('lower');
      expect(row.sensitivity.n).toBe(DECKS);
      expect(row.sensitivity.share!, evaluator).toBeGreaterThanOrEqual(0.2);
      expect(row.sensitivity.share!, evaluator).toBeLessThanOrEqual(0.7);
      expect(row.mark, evaluator).not.toBe('real');
    }
    // 2 decks × 40 cases × (25 items + 1 holistic call).
    expect(server.requests.length).toBe(2 * DECKS * (5 * TEST_ITEMS_PER_DIMENSION + 1));
    // The config's prices reach the judge's ledger, as in every other stage: each call is costed with them.
    const ledger = await readJsonlAll(
      new RunLayout(dataDir).usageLedgerFile('r@meta'),
      usageLedgerEntrySchema,
    );
    expect(ledger).toHaveLength(server.requests.length);
    for (const line of ledger)
      expect(line.costUsd).toBeCloseTo((line.inputTokens * 1 + line.outputTokens * 2) / 1e6, 9);
  }, 180_000);

  it('gets kappa near 0 against a fixed set of verdicts', async () => {
    const judged = await readVerdictSet(new RunLayout(join(dir, 'data')).decksRoot('r@meta'));
    // The fixed set: the same items, "yes" for odd item numbers, "no" for even ones.
    const fixed = { ...judged, source: 'fixed', judges: ['fixed'], items: new Map(judged.items) };
    for (const [key, item] of fixed.items)
      fixed.items.set(key, {
        ...item,
        value: Number(key.slice(key.lastIndexOf('.') + 1)) % 2 ? 'yes' : 'no',
      });
    const agreement = computeAgreement(judged, fixed, { resamples: 300 });
    expect(agreement.matched_items).toBe(2 * DECKS * 5 * TEST_ITEMS_PER_DIMENSION);
    // Two independent raters: kappa's standard error at n = 2000 is about 0.022; |kappa| < 0.1 is > 4 of them.
    expect(Math.abs(agreement.overall.kappa.value!)).toBeLessThan(0.1);
    expect(agreement.overall.kappa.ci_low!).toBeLessThan(0);
    expect(Math.abs(agreement.overall.alpha.value!)).toBeLessThan(0.1);
    expect(agreement.overall.agreement.value!).toBeGreaterThan(0.4);
    expect(agreement.overall.agreement.value!).toBeLessThan(0.6);
  });
});

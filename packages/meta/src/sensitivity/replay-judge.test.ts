import { existsSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RunLayout, readJsonlAll } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { replayPendingLineSchema } from '@xsb/llm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { perturbDeck } from '../perturb/perturb-deck';
import { FABRICATED_CLAIM_TEMPLATES } from '../perturb/text-patterns';
import { runSensitivity } from './run-sensitivity';
import { writeRubricTestData } from './testing-rubric-data';

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-meta-replay-'));
});
afterAll(async () => cleanup());

/** The fixed words of each fabricated-claim template: a scripted judge that spots injected claims. */
const FABRICATION_MARKERS = FABRICATED_CLAIM_TEMPLATES.map((template) =>
  template
    .split(/\{[TYPN]\}/)
    .sort((a, b) => b.length - a.length)[0]!
    .trim(),
);

/**
 * The scripted "model" a person would be when filling a replay store by hand: it answers the rubric's
 * correctness and fidelity questions "no" when the deck holds a claim the material does not support,
 * "yes" otherwise, and rates every deck 4/4/4.
 */
function scriptedCompletion(system: string, prompt: string): string {
  if (system.includes('Rate the deck')) {
    return JSON.stringify({
      content: { score: 4, reason: 'ok' },
      design: { score: 4, reason: 'ok' },
      coherence: { score: 4, reason: 'ok' },
    });
  }
  const requirement = prompt.slice(prompt.lastIndexOf('---'));
  const asksAboutFacts = /Correctness|Fidelity/.test(requirement);
  const fabricated = FABRICATION_MARKERS.some((marker) => prompt.includes(marker));
  return asksAboutFacts && fabricated ? 'A claim is not in the material. \\boxed{no}' : 'Fine. \\boxed{yes}';
}

describe('the replay path: record → fill the store → replay', () => {
  it('produces the sensitivity table of a pinned judge without any model', async () => {
    const dataDir = join(dir, 'data');
    const cases = await writeRubricTestData(dataDir, 'r', 3);
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
      await perturbDeck({ deck, outDir: join(dir, 'p', label), kinds: ['inject_claims'], severities: [1] });
    }
    const store = join(dir, 'store.jsonl');
    const pending = join(dir, 'store.pending.jsonl');
    const answered = new Set<string>();
    const options = {
      dataDir,
      run: 'r',
      perturbations: [join(dir, 'p')],
      families: ['rubric', 'holistic'] as const,
      resamples: 200,
    };
    let rounds = 0;
    // Record until no prompt is left unanswered (the first item of each tier runs alone, so
    // several rounds are needed, exactly as when a person fills a store).
    while (rounds < 40) {
      rounds += 1;
      const { result } = await runSensitivity({
        ...options,
        judge: `record:${store}`,
        outDir: join(dir, 'record'),
      });
      const lines = existsSync(pending) ? await readJsonlAll(pending, replayPendingLineSchema) : [];
      const fresh = lines.filter((line) => !answered.has(line.key));
      if (fresh.length === 0) {
        expect(result.failures).toEqual([]);
        break;
      }
      for (const line of fresh) {
        answered.add(line.key);
        await appendFile(
          store,
          `${JSON.stringify({ key: line.key, model: 'scripted-judge', completion: scriptedCompletion(line.system, line.prompt) })}\n`,
        );
      }
    }
    expect(rounds).toBeGreaterThan(1);
    expect(rounds).toBeLessThan(40);
    const { result } = await runSensitivity({ ...options, judge: `replay:${store}` });
    expect(result.judge).toBe(`replay:${store}`);
    expect(result.offline).toBe(false);
    expect(result.failures).toEqual([]);
    const row = (evaluator: string) =>
      result.summary.find((item) => item.evaluator === evaluator && item.kind === 'inject_claims')!;
    // The scripted judge notices every injected claim in correctness and fidelity, so both fall on all 3 decks.
    expect(row('rubric.correctness').sensitivity).toMatchObject({ n: 3, k: 3 });
    expect(row('rubric.fidelity').sensitivity).toMatchObject({ n: 3, k: 3 });
    expect(row('rubric.total').sensitivity).toMatchObject({ n: 3, k: 3 });
    expect(result.evaluators.find((item) => item.id === 'holistic.overall')!.applicable).toBe(true);
  }, 180_000);
});

import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { createJudge } from '@xsb/llm';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateBaselineDeck } from './generate-baseline-deck';
import { readDeck } from './read-deck';

const OUTLINE = {
  title: 'Riverton heat pumps',
  subtitle: 'What the pilot means for the budget',
  slides: [
    {
      title: 'Bills fell',
      bullets: ['Average bills fell by 410 dollars per home.', 'Energy use dropped 38 percent.'],
    },
    {
      title: 'Savings by site',
      bullets: [],
      chart: {
        type: 'bar',
        title: 'Savings %',
        categories: ['North', 'South'],
        series: [{ name: 'Savings %', values: [35, 42] }],
      },
    },
  ],
};

let dir: string;
let cleanup: () => Promise<void>;
let server: FakeLlmServer;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-baseline-llm-'));
  server = await startFakeLlmServer();
});
afterEach(async () => {
  await server.close();
  await cleanup();
});

describe('generateBaselineDeck with a model planner (real OpenAI SDK against the fake server)', () => {
  it('sends source and audience profile, corrects a bad answer once, and writes the planned deck', async () => {
    let calls = 0;
    server.setHandler(() => {
      calls++;
      return calls === 1
        ? { text: 'Here is the outline: {"title": ""}' }
        : { text: `\`\`\`json\n${JSON.stringify(OUTLINE)}\n\`\`\`` };
    });
    const client = createJudge('openai:gpt-test', { env: fakeProviderEnv(server) });
    const output = join(dir, 'deck.pptx');
    const result = await generateBaselineDeck(
      {
        caseLabel: 'heat',
        condition: 'audience_conditioned',
        audience: 'decision_makers',
        audienceProfile: 'Executives who decide budgets.',
        sourceText: 'Average bills fell by 410 dollars per home.',
        outputDeckPath: output,
        deckDir: dir,
        maxSlides: 6,
      },
      client,
    );
    expect(server.requests).toHaveLength(2);
    const first = server.requests[0];
    expect(first?.text).toContain('<source>\nAverage bills fell by 410 dollars per home.\n</source>');
    expect(first?.text).toContain('Executives who decide budgets.');
    expect(first?.text).toContain('at most 6 slides');
    expect(server.requests[1]?.text).toContain('Your answer could not be used');
    expect(result.slideCount).toBe(3);
    const deck = await readDeck(output);
    expect(deck.slides.map((slide) => slide.title)).toEqual([
      'Riverton heat pumps',
      'Bills fell',
      'Savings by site',
    ]);
    expect(
      deck.slides[2]?.elements.some(
        (element) => element.kind === 'chart' && element.text.includes('North 35'),
      ),
    ).toBe(true);
  });

  it('leaves the audience profile out of an agnostic request and refuses a conditioned deck without one', async () => {
    server.setHandler(() => ({ text: JSON.stringify(OUTLINE) }));
    const client = createJudge('openai:gpt-test', { env: fakeProviderEnv(server) });
    const base = {
      caseLabel: 'heat',
      audience: 'all',
      sourceText: 'Average bills fell by 410 dollars per home.',
      outputDeckPath: join(dir, 'a.pptx'),
      deckDir: dir,
    };
    await generateBaselineDeck(
      { ...base, condition: 'audience_agnostic', audienceProfile: 'SECRET PROFILE' },
      client,
    );
    expect(server.requests[0]?.text).not.toContain('SECRET PROFILE');
    expect(server.requests[0]?.text).toContain('Audience: not specified');
    await expect(
      generateBaselineDeck({ ...base, condition: 'audience_conditioned' }, client),
    ).rejects.toThrow(/no audience profile for "all"/);
  });
});

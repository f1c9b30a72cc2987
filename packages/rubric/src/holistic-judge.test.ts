import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { createLlmClient, judgeFromClient } from '@xsb/llm';
import { fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { describe, expect, it } from 'vitest';
import { HOLISTIC_SYSTEM_PROMPT, judgeHolistic, parseHolisticAnswer, runHolistic } from './holistic-judge';
import { deckOf, slideOf, textElement } from './testing';
import { writeLayoutFixtureDecks } from './write-layout-fixture-decks';

describe('parseHolisticAnswer', () => {
  it('reads fenced JSON with prose and rescales like PresentBench ((overall - 1) * 25)', () => {
    const text =
      'Here is my rating:\n```json\n{"Content": {"score": 4, "reason": "good {detail}"}, "design": {"score": 3, "reason": ""}, "coherence": 5}\n```';
    const parsed = parseHolisticAnswer(text);
    expect(parsed?.overall).toBe(4);
    expect(parsed?.overall_percent).toBe(75);
    expect(parsed?.content.reason).toBe('good {detail}');
  });
  it.each([
    'no json here',
    '{"content": 6, "design": 3, "coherence": 3}',
    '{"content": 4, "design": 3}',
    '{"content": 3.5, "design": 3, "coherence": 3}',
  ])('rejects %j', (text) => {
    expect(parseHolisticAnswer(text)).toBeNull();
  });
});

describe('judgeHolistic', () => {
  it('asks once with the deck, retries an unreadable answer once', async () => {
    let calls = 0;
    const server = await startFakeLlmServer({
      handler: (request) => {
        calls += 1;
        expect(request.system).toBe(HOLISTIC_SYSTEM_PROMPT);
        return { text: calls === 1 ? 'Great deck!' : '{"content": 2, "design": 3, "coherence": 4}' };
      },
    });
    try {
      const client = createLlmClient('openai:gpt-holistic', { env: fakeProviderEnv(server), noCache: true });
      const deck = deckOf([
        slideOf(1, 'T', [textElement('Bits and bytes', { x: 0, y: 0, width: 10, height: 10 })]),
      ]);
      const score = await judgeHolistic(client, deck);
      expect(score.overall).toBe(3);
      expect(calls).toBe(2);
      expect(server.requests[0]?.text).toContain('--- Slide 1 ---\nBits and bytes');
    } finally {
      await server.close();
    }
  });
});

describe('runHolistic', () => {
  it('names rows by instance id, like runRubric, so both evaluators align on the same samples', async () => {
    const server = await startFakeLlmServer({
      handler: () => ({ text: '{"content": 5, "design": 4, "coherence": 3}' }),
    });
    const { dir, cleanup } = await makeTempDir();
    try {
      const results = join(dir, 'results');
      await mkdir(join(results, 'generation_task/results'), { recursive: true });
      await copyFile(
        (await writeLayoutFixtureDecks(dir)).clean,
        join(results, 'generation_task/results/slides.pptx'),
      );
      const rows = await runHolistic({
        instancesDir: join(__dirname, '../../../fixtures/rubric/appendix-cs-overview-ch1'),
        resultsDir: results,
        judge: judgeFromClient(
          'openai:gpt-holistic-run',
          createLlmClient('openai:gpt-holistic-run', { env: fakeProviderEnv(server), noCache: true }),
        ),
      });
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        instance_id: 'appendix-a2-computer-science-overview-ch1',
        error: null,
      });
      expect(rows[0]?.score?.overall_percent).toBe(75);
    } finally {
      await cleanup();
      await server.close();
    }
  });
});

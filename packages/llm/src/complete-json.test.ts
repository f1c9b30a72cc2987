import { exitCodeFor, InputError } from '@xsb/core';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { completeJson, extractJson, StructuredAnswerError } from './complete-json';
import { createLlmClient } from './create-llm-client';

describe('extractJson', () => {
  it.each([
    ['bare JSON', '{"a": 1}', { a: 1 }],
    ['a json fence inside prose', 'Here you go:\n```json\n{"a": 2}\n```\nHope that helps.', { a: 2 }],
    ['a bare fence', '```\n[1, 2]\n```', [1, 2]],
    [
      'an object inside prose',
      'The verdict is {"a": "x}y", "b": [1, {"c": 3}]} as requested.',
      { a: 'x}y', b: [1, { c: 3 }] },
    ],
    ['after an unparseable brace', 'Using {braces} loosely, the answer: {"ok": true}', { ok: true }],
  ])('finds %s', (_name, text, expected) => {
    expect(extractJson(text)).toEqual(expected);
  });

  it('finds the object after many stray brackets, and gives up on a wall of them without hanging', () => {
    const strays = 'Use {x} or [y or {z and '.repeat(200);
    expect(extractJson(`${strays} the answer: {"ok": [1, 2]} done`)).toEqual({ ok: [1, 2] });
    // Scanning from every one of 64,000 openers to the end would take about a minute (the test
    // timeout fails it); the search budget ends it in a fraction of a second.
    expect(extractJson('{'.repeat(64_000))).toBeUndefined();
  });

  it('returns undefined when there is no JSON', () => {
    expect(extractJson('no json here {not: valid')).toBeUndefined();
  });
});

let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlmServer();
});
afterAll(async () => {
  await server.close();
});

const schema = z.object({ score: z.number().int().min(0).max(4), reason: z.string() });
const request = { system: 'Score the slide.', messages: [{ role: 'user' as const, content: 'Slide 1' }] };

describe.each(['anthropic:claude-test', 'openai:gpt-test'])('completeJson via %s', (spec) => {
  const llm = () => createLlmClient(spec, { env: fakeProviderEnv(server) });

  it('reads JSON wrapped in prose and a fence', async () => {
    server.setHandler(() => ({ text: 'Sure!\n```json\n{"score": 3, "reason": "clear"}\n```' }));
    const { value, result } = await completeJson(llm(), request, schema);
    expect(value).toEqual({ score: 3, reason: 'clear' });
    expect(result.judgeId).toBe(spec);
  });

  it('makes one corrective call carrying the validation finding', async () => {
    const seen: string[] = [];
    server.setHandler((r) => {
      seen.push(r.text);
      return seen.length === 1
        ? { text: '{"score": 9, "reason": "great"}' }
        : { text: '{"score": 4, "reason": "great"}' };
    });
    const { value } = await completeJson(llm(), request, schema);
    expect(value.score).toBe(4);
    expect(seen).toHaveLength(2);
    expect(seen[1]).toContain('{"score": 9, "reason": "great"}');
    expect(seen[1]).toMatch(/score: Too big/i);
  });

  it('throws StructuredAnswerError (a failed row) after the corrective call also fails', async () => {
    let calls = 0;
    server.setHandler(() => {
      calls += 1;
      return { text: 'I would rather not answer in JSON.' };
    });
    const error = await completeJson(llm(), request, schema, { stage: 'rubric' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StructuredAnswerError);
    expect(error).toBeInstanceOf(InputError);
    expect(exitCodeFor(error)).toBe(1);
    expect((error as StructuredAnswerError).finding).toContain('no parseable JSON');
    expect(calls).toBe(2);
  });
});

describe.each(['anthropic:claude-test', 'openai:gpt-test'])(
  'answers cut at the token limit via %s',
  (spec) => {
    it('reports stopReason max_tokens and says so in the structured-answer finding', async () => {
      const long = JSON.stringify({ score: 2, reason: 'x'.repeat(400) });
      server.setHandler(() => ({ text: long }));
      const llm = createLlmClient(spec, { env: fakeProviderEnv(server) });
      const whole = await llm.complete({ ...request, maxTokens: 1000 });
      expect(whole.stopReason).toBe('end');
      expect(whole.text).toBe(long);
      const cut = await llm.complete({ ...request, maxTokens: 20 });
      expect(cut.stopReason).toBe('max_tokens');
      expect(cut.text).toBe(long.slice(0, 80));
      const error = await completeJson(llm, { ...request, maxTokens: 20 }, schema).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StructuredAnswerError);
      expect((error as StructuredAnswerError).message).toContain('cut off at the token limit');
    });
  },
);

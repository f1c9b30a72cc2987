import { fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ESTIMATOR_CASES } from '../bench/estimator-cases';
import type { CompletionRequest } from './completion-types';
import { createLlmClient } from './create-llm-client';
import { DEFAULT_ANSWER_BUDGET, estimateTokens } from './estimate-request-tokens';

let server: Awaited<ReturnType<typeof startFakeLlmServer>>;
beforeAll(async () => {
  server = await startFakeLlmServer({ handler: () => ({ text: 'ok' }) });
});
afterAll(async () => {
  await server.close();
});

describe('estimateTokens', () => {
  it('counts UTF-8 bytes / 4 of system, text parts and schema, 1,600 per image, PDF bytes / 100', () => {
    const request: CompletionRequest = {
      system: 'abcd'.repeat(10),
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'é'.repeat(20) },
            { type: 'image', mediaType: 'image/png', data: new Uint8Array(10) },
          ],
        },
        { role: 'assistant', content: 'wxyz' },
        {
          role: 'user',
          content: [{ type: 'document', mediaType: 'application/pdf', data: new Uint8Array(5_000) }],
        },
      ],
      responseSchema: { name: 'x', schema: { type: 'object' } },
      maxTokens: 77,
    };
    // 40 + 40 (é is 2 bytes) + 4 + 17 schema bytes = 101 bytes → 25.25; + 1600 + 50.
    expect(estimateTokens(request)).toEqual({ inputTokens: 1676, maxOutputTokens: 77 });
    expect(estimateTokens({ messages: [{ role: 'user', content: 'hi' }] }).maxOutputTokens).toBe(
      DEFAULT_ANSWER_BUDGET,
    );
  });

  it.each(['anthropic:claude-test', 'openai:gpt-test'])(
    '%s: is within the documented error of the input the fake server bills',
    async (spec) => {
      const client = createLlmClient(spec, { env: fakeProviderEnv(server) });
      for (const { name, request, tolerance } of ESTIMATOR_CASES) {
        const { usage } = await client.complete(request);
        const billed = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
        const estimate = estimateTokens(request).inputTokens;
        const error = (estimate - billed) / billed;
        const allowed = spec.startsWith('anthropic') ? tolerance.anthropic : tolerance.openai;
        expect(error, `${name}: estimate ${estimate}, billed ${billed}`).toBeGreaterThanOrEqual(allowed[0]);
        expect(error, `${name}: estimate ${estimate}, billed ${billed}`).toBeLessThanOrEqual(allowed[1]);
      }
    },
  );
});

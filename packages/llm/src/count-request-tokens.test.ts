import { fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ESTIMATOR_CASES } from '../bench/estimator-cases';
import { createTokenCounter } from './count-request-tokens';
import { createLlmClient } from './create-llm-client';

let server: Awaited<ReturnType<typeof startFakeLlmServer>>;
beforeAll(async () => {
  server = await startFakeLlmServer({ handler: () => ({ text: 'ok' }) });
});
afterAll(async () => {
  await server.close();
});

describe('createTokenCounter', () => {
  it.each(['anthropic:claude-test', 'openai:gpt-test'])(
    '%s: counts through the provider endpoint what a completion of the same request bills',
    async (spec) => {
      const env = fakeProviderEnv(server);
      const counter = createTokenCounter(spec, { env });
      const client = createLlmClient(spec, { env });
      const before = server.tokenCountRequests;
      for (const { name, request } of ESTIMATOR_CASES) {
        const counted = await counter.count(request);
        const { usage } = await client.complete(request);
        const billed = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
        // The fake counts and bills with one approximation, so the two must agree to the token: this
        // checks that the count body carries exactly the prompt a completion sends.
        expect(counted, `${spec} ${name}`).toBe(billed);
      }
      expect(server.tokenCountRequests - before).toBe(ESTIMATOR_CASES.length);
    },
  );

  it('refuses specs without a provider, and a missing key, before any request', () => {
    expect(() => createTokenCounter('lexical')).toThrow(/anthropic: and openai: judges only/);
    expect(() => createTokenCounter('anthropic:claude-test', { env: {} })).toThrow(/ANTHROPIC_API_KEY/);
  });

  it('names the endpoint and never the key when the server refuses', async () => {
    const env = { ...fakeProviderEnv(server), OPENAI_BASE_URL: `${server.url}/nowhere` };
    const counter = createTokenCounter('openai:gpt-test', { env });
    const error = (await counter.count(ESTIMATOR_CASES[0]!.request).then(
      () => undefined,
      (e: unknown) => e,
    )) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toMatch(/token count failed after 1 attempt: HTTP 404/);
    expect(error.message).not.toContain('fake-openai-key');
  });
});

import { fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { describe, expect, it } from 'vitest';
import type { CompletionRequest } from './completion-types';
import { createLlmClient } from './create-llm-client';
import type { ProviderClient } from './provider-client';

const asks = (n: number, prefix: string): CompletionRequest[] =>
  Array.from({ length: n }, (_, i) => ({
    messages: [{ role: 'user', content: `${prefix} ${i}` }],
    maxTokens: 20,
  }));

describe('throughput under a provider’s limits (fake server enforcing them)', () => {
  it('anthropic: more calls in flight than the server takes → 529s, the limit halves, every call succeeds', async () => {
    const server = await startFakeLlmServer({ latencyMs: 20, rateLimits: { maxInFlight: 4 } });
    try {
      const client = createLlmClient('anthropic:claude-test', {
        env: fakeProviderEnv(server),
        limits: { maxConcurrency: 16, maxAttempts: 10 },
        baseBackoffMs: 5,
      }) as ProviderClient;
      const results = await Promise.all(asks(60, 'overload').map((q) => client.complete(q)));
      expect(results).toHaveLength(60);
      const stats = server.rateLimitStats;
      expect(stats.accepted).toBe(60);
      expect(stats.overloaded).toBeGreaterThan(0);
      expect(stats.peakInFlight).toBeLessThanOrEqual(4);
      expect(client.limiter.snapshot().decreases).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  it('openai: a server that enforces its RPM over half a second answers 429 to the first burst only; every call succeeds', async () => {
    // 1,200 RPM = 20 a second, of which the server holds only half a second (10) at once.
    const server = await startFakeLlmServer({ rateLimits: { requestsPerMinute: 1200, burstMs: 500 } });
    try {
      const client = createLlmClient('openai:gpt-test', {
        env: fakeProviderEnv(server),
        limits: { maxConcurrency: 32, requestsPerMinute: 1200, maxAttempts: 6 },
        baseBackoffMs: 5,
      });
      const started = Date.now();
      const results = await Promise.all(asks(40, 'paced').map((q) => client.complete(q)));
      expect(results).toHaveLength(40);
      const stats = server.rateLimitStats;
      expect(stats.accepted).toBe(40);
      // The first burst meets 429s; after that the client's emptied bucket paces it at the server's rate.
      expect(stats.rateLimited).toBeGreaterThan(0);
      expect(stats.rateLimited).toBeLessThan(60);
      // 30 calls beyond the server's burst at 20 a second: at least ~1.5 s.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_200);
    } finally {
      await server.close();
    }
  });

  it('a client configured with the server’s TPM gets no 429 at all: estimates are reconciled with usage', async () => {
    const server = await startFakeLlmServer({ rateLimits: { tokensPerMinute: 60_000 } });
    try {
      const client = createLlmClient('openai:gpt-test', {
        env: fakeProviderEnv(server),
        limits: { maxConcurrency: 8, tokensPerMinute: 60_000 },
      });
      // Each call reserves ~2,000 tokens (prompt + maxTokens) but spends ~10: without giving the
      // rest back the client would stall after 30 calls for a minute.
      const results = await Promise.all(
        Array.from({ length: 80 }, (_, i) =>
          client.complete({ messages: [{ role: 'user', content: `tpm ${i}` }], maxTokens: 2_000 }),
        ),
      );
      expect(results).toHaveLength(80);
      expect(server.rateLimitStats).toMatchObject({ accepted: 80, rateLimited: 0 });
    } finally {
      await server.close();
    }
  });
});

import { approximateTokens, type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompletionRequest } from './completion-types';
import { createLlmClient } from './create-llm-client';

let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlmServer({ handler: () => ({ text: 'yes' }) });
});
afterAll(async () => {
  await server.close();
});

// About 2,500 approximate tokens (10,000 bytes / 4): above both providers' 1,024-token minimum.
const deck = `Deck text. ${'The quarterly revenue grew in every region. '.repeat(230)}`;
const ask = (question: string, breakpoint = true): CompletionRequest => ({
  system: 'You answer questions about the deck.',
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: deck, cacheBreakpoint: breakpoint },
        { type: 'text', text: question },
      ],
    },
  ],
});

describe('prompt-prefix caching through the fake server', () => {
  it('anthropic: cache_control at the breakpoint, a write first and reads after', async () => {
    const llm = createLlmClient('anthropic:claude-test', { env: fakeProviderEnv(server) });
    const first = await llm.complete(ask('Which region grew?'));
    const sent = server.requests.at(-1)?.body as {
      messages: Array<{ content: Array<Record<string, unknown>> }>;
    };
    expect(sent.messages[0]?.content[0]?.cache_control).toEqual({ type: 'ephemeral' });
    expect(sent.messages[0]?.content[1]?.cache_control).toBeUndefined();
    expect(first.usage.cacheWriteTokens).toBeGreaterThan(2000);
    expect(first.usage.cacheReadTokens).toBe(0);
    const second = await llm.complete(ask('Did revenue fall?'));
    expect(second.usage.cacheReadTokens).toBe(first.usage.cacheWriteTokens);
    expect(second.usage.cacheWriteTokens).toBe(0);
    expect(second.usage.inputTokens).toBeLessThan(50);
  });

  it('anthropic: no breakpoint, no cache', async () => {
    const llm = createLlmClient('anthropic:claude-test2', { env: fakeProviderEnv(server) });
    await llm.complete(ask('q1', false));
    const again = await llm.complete(ask('q2', false));
    expect(again.usage.cacheReadTokens).toBe(0);
    expect(again.usage.cacheWriteTokens).toBe(0);
    expect(again.usage.inputTokens).toBeGreaterThan(2000);
  });

  it('openai: a long shared prefix is reported as cached tokens in steps of 128', async () => {
    const llm = createLlmClient('openai:gpt-test', { env: fakeProviderEnv(server) });
    const first = await llm.complete(ask('Which region grew?'));
    expect(first.usage.cacheReadTokens).toBe(0);
    const second = await llm.complete(ask('Did revenue fall?'));
    expect(second.usage.cacheReadTokens).toBeGreaterThan(2000);
    expect(second.usage.cacheReadTokens % 128).toBe(0);
    // Only the shared part can be cached: never more than the system prompt plus the deck.
    expect(second.usage.cacheReadTokens).toBeLessThanOrEqual(
      approximateTokens(`${ask('').system}${deck}`) + 16,
    );
    expect(second.usage.inputTokens).toBeLessThan(first.usage.inputTokens);
  });

  it('openai: short prompts are never cached', async () => {
    const llm = createLlmClient('openai:gpt-test', { env: fakeProviderEnv(server) });
    await llm.complete({ messages: [{ role: 'user', content: 'short one' }] });
    const again = await llm.complete({ messages: [{ role: 'user', content: 'short one' }] });
    expect(again.usage.cacheReadTokens).toBe(0);
  });
});

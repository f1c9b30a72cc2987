import type { CompletionRequest } from '@xsb/llm';
import { describe, expect, it } from 'vitest';
import { PromptCacheModel } from './prompt-cache-model';

const prefix = 'deck and materials '.repeat(400); // 7,600 bytes: 1,900 estimated tokens
const request = (item: string, shared = prefix): CompletionRequest => ({
  system: 'Judge the item.',
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: shared, cacheBreakpoint: true },
        { type: 'text', text: item },
      ],
    },
  ],
});

describe('PromptCacheModel', () => {
  it('anthropic: the first call writes the marked prefix, the later ones read it', () => {
    const model = new PromptCacheModel('anthropic');
    const first = model.apply(request('item 1'), 'claude', 1910);
    expect(first.cacheReadTokens).toBe(0);
    expect(first.cacheWriteTokens).toBe(1904); // system (15 bytes) + prefix, rounded up
    expect(model.apply(request('item 2'), 'claude', 1910)).toEqual({
      cacheReadTokens: 1904,
      cacheWriteTokens: 0,
    });
    // Another model has its own cache.
    expect(model.apply(request('item 3'), 'other', 1910).cacheReadTokens).toBe(0);
  });

  it('anthropic: a prefix below the minimum is never cached', () => {
    const model = new PromptCacheModel('anthropic');
    const short = 'x'.repeat(400);
    for (const item of ['a', 'b'])
      expect(model.apply(request(item, short), 'claude', 120)).toEqual({
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      });
  });

  it('openai: a marked prefix sent before is read in steps of 128 tokens, with no writes', () => {
    const model = new PromptCacheModel('openai');
    expect(model.apply(request('item 1'), 'gpt', 1910)).toEqual({ cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(model.apply(request('item 2'), 'gpt', 1910)).toEqual({
      cacheReadTokens: 1792,
      cacheWriteTokens: 0,
    });
  });

  it('no provider, no cache; no breakpoint, no cache', () => {
    expect(new PromptCacheModel('replay').apply(request('a'), 'm', 1910).cacheReadTokens).toBe(0);
    const model = new PromptCacheModel('anthropic');
    const plain: CompletionRequest = { messages: [{ role: 'user', content: prefix }] };
    model.apply(plain, 'claude', 1900);
    expect(model.apply(plain, 'claude', 1900)).toEqual({ cacheReadTokens: 0, cacheWriteTokens: 0 });
  });
});

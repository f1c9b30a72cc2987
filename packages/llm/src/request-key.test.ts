import { describe, expect, it } from 'vitest';
import type { CompletionRequest } from './completion-types';
import { cacheKeyFor, renderPromptText, replayKeyFor } from './request-key';

const png = (bytes: number[]) => new Uint8Array(bytes);
const base: CompletionRequest = {
  system: 'judge',
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'deck' },
        { type: 'image', mediaType: 'image/png', data: png([1, 2, 3]) },
        { type: 'text', text: 'question' },
      ],
    },
  ],
  temperature: 0,
  maxTokens: 100,
};
const key = (
  request: CompletionRequest,
  over: Partial<{ provider: string; model: string; baseUrl: string }> = {},
) => cacheKeyFor({ provider: 'openai', model: 'm', baseUrl: 'http://x/v1', request, ...over });

describe('cacheKeyFor', () => {
  it('is stable for equal requests built separately', () => {
    expect(key(base)).toBe(key(structuredClone(base)));
    expect(key(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each<[string, CompletionRequest | Parameters<typeof key>[1]]>([
    ['temperature', { ...base, temperature: 0.5 }],
    ['max tokens', { ...base, maxTokens: 101 }],
    ['stop', { ...base, stop: ['END'] }],
    ['seed', { ...base, seed: 7 }],
    ['response schema', { ...base, responseSchema: { name: 'x', schema: { type: 'object' } } }],
    ['system', { ...base, system: 'other judge' }],
    [
      'image bytes',
      {
        ...base,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'deck' },
              { type: 'image', mediaType: 'image/png', data: png([1, 2, 4]) },
              { type: 'text', text: 'question' },
            ],
          },
        ],
      },
    ],
  ])('changes with the %s', (_name, changed) => {
    expect(key(changed as CompletionRequest)).not.toBe(key(base));
  });

  it('changes with provider, model and base URL', () => {
    expect(key(base, { provider: 'anthropic' })).not.toBe(key(base));
    expect(key(base, { model: 'n' })).not.toBe(key(base));
    expect(key(base, { baseUrl: 'http://y/v1' })).not.toBe(key(base));
  });

  it('ignores the stage and cache breakpoints, which cannot change the answer', () => {
    const marked = structuredClone(base);
    const first = (marked.messages[0]!.content as Array<{ cacheBreakpoint?: boolean }>)[0]!;
    first.cacheBreakpoint = true;
    expect(key({ ...marked, stage: 'probes' })).toBe(key(base));
  });
});

describe('replayKeyFor', () => {
  it('depends on the system and the prompt only', () => {
    const resampled: CompletionRequest = { ...base, temperature: 1, model: 'x', stage: 's' };
    expect(replayKeyFor(base)).toBe(replayKeyFor(resampled));
    expect(replayKeyFor({ ...base, system: 'other' })).not.toBe(replayKeyFor(base));
    expect(replayKeyFor({ messages: [{ role: 'user', content: 'a' }] })).toBe(
      replayKeyFor({ messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }] }] }),
    );
  });
});

describe('renderPromptText', () => {
  it('shows binary parts as hashed placeholders', () => {
    const text = renderPromptText(base.messages);
    expect(text).toContain('deck');
    expect(text).toMatch(/\[image image\/png sha256:[0-9a-f]{64}\]/);
  });
});

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
    expect(key(base, { baseUrl: 'http://x/v1/' })).toBe(key(base));
  });

  it('treats unset, undefined and empty settings alike, and ignores key order', () => {
    const { temperature: _t, maxTokens: _m, ...bare } = base;
    expect(key({ ...bare, temperature: undefined, stop: [], seed: undefined })).toBe(key(bare));
    const reordered = { maxTokens: 100, messages: base.messages, temperature: 0, system: 'judge' };
    expect(key(reordered)).toBe(key(base));
    const schemaA = { name: 'x', schema: { type: 'object', required: ['a'], properties: { a: {} } } };
    const schemaB = { schema: { properties: { a: {} }, required: ['a'], type: 'object' }, name: 'x' };
    expect(key({ ...base, responseSchema: schemaA })).toBe(key({ ...base, responseSchema: schemaB }));
  });

  it('changes with the media type, size and title of a binary part and with message roles', () => {
    const withPart = (part: Record<string, unknown>, role: 'user' | 'assistant' = 'user') =>
      key({ ...base, messages: [{ role, content: [part as never] }] });
    const pdf = { type: 'document', mediaType: 'application/pdf', data: png([1, 2, 3]) };
    expect(withPart(pdf)).not.toBe(withPart({ ...pdf, title: 'a.pdf' }));
    expect(withPart({ ...pdf, type: 'image', mediaType: 'image/png' })).not.toBe(
      withPart({ ...pdf, type: 'image', mediaType: 'image/jpeg' }),
    );
    expect(withPart({ type: 'text', text: 'same' })).not.toBe(
      withPart({ type: 'text', text: 'same' }, 'assistant'),
    );
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

describe('replayKeyFor stability', () => {
  it('keeps the exact keys existing replay stores (fixtures/replay/demo.jsonl) were written with', () => {
    // A change here orphans every recorded store: their completions would all miss.
    expect(
      replayKeyFor({ system: 'You judge.', messages: [{ role: 'user', content: 'Is the sky blue?' }] }),
    ).toBe('204dca52beb4548f4dbc8bdb57973e982e8c39e2a392b281190af42e3a0513fa');
    expect(
      replayKeyFor({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Slide:' },
              { type: 'image', mediaType: 'image/png', data: png([1, 2, 3]) },
            ],
          },
          { role: 'assistant', content: 'ok' },
        ],
      }),
    ).toBe('d1587d91da613ba62fab6e6e69801f8066a2e6286bf053b05e7c6a5372838db5');
  });
});

describe('renderPromptText', () => {
  it('shows binary parts as hashed placeholders', () => {
    const text = renderPromptText(base.messages);
    expect(text).toContain('deck');
    expect(text).toMatch(/\[image image\/png sha256:[0-9a-f]{64}\]/);
  });
});

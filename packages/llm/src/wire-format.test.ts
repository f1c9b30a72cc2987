import { ProviderError } from '@xsb/core';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { toAnthropicBody } from './anthropic-adapter';
import type { CompletionRequest } from './completion-types';
import { createLlmClient } from './create-llm-client';
import { toOpenAiBody } from './openai-adapter';

let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlmServer({ handler: () => ({ text: '{"ok": true}' }) });
});
afterAll(() => server.close());

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
const pdf = new Uint8Array([0x25, 0x50, 0x44, 0x46, 9, 9]);
const request: CompletionRequest = {
  system: 'You grade slides.',
  messages: [
    {
      role: 'user',
      content: [
        {
          type: 'document',
          mediaType: 'application/pdf',
          data: pdf,
          title: 'source.pdf',
          cacheBreakpoint: true,
        },
        { type: 'image', mediaType: 'image/png', data: png },
        { type: 'text', text: 'Grade slide 1.' },
      ],
    },
  ],
  temperature: 0,
  maxTokens: 321,
  stop: ['END'],
  seed: 42,
  responseSchema: { name: 'grade', schema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
};

describe('what reaches the wire', () => {
  it('anthropic: base64 document and image blocks, cache_control, sampling, schema in the system prompt', async () => {
    const result = await createLlmClient('anthropic:claude-test', { env: fakeProviderEnv(server) }).complete(
      request,
    );
    expect(result.text).toBe('{"ok": true}');
    const seen = server.requests.at(-1)!;
    // SDK 1.x sends the key as a bearer token.
    expect(seen.headers.authorization).toBe('Bearer fake-anthropic-key');
    expect(seen.body).toMatchObject({
      model: 'claude-test',
      max_tokens: 321,
      temperature: 0,
      stop_sequences: ['END'],
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'document',
              source: {
                type: 'base64',
                media_type: 'application/pdf',
                data: Buffer.from(pdf).toString('base64'),
              },
              title: 'source.pdf',
              cache_control: { type: 'ephemeral' },
            },
            {
              type: 'image',
              source: { type: 'base64', media_type: 'image/png', data: Buffer.from(png).toString('base64') },
            },
            { type: 'text', text: 'Grade slide 1.' },
          ],
        },
      ],
    });
    expect(seen.body).not.toHaveProperty('seed');
    expect(seen.system).toContain('You grade slides.');
    expect(seen.system).toContain('"grade"');
  });

  it('anthropic: a deprecated model id prints nothing to the console (the SDK would warn on every call)', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const llm = createLlmClient('anthropic:claude-sonnet-4-5', { env: fakeProviderEnv(server) });
      await llm.complete({ messages: [{ role: 'user', content: 'a' }] });
      await llm.complete({ messages: [{ role: 'user', content: 'b' }] });
      expect(server.requests.at(-1)?.model).toBe('claude-sonnet-4-5');
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('openai: system message, data-URL image, file part, seed, stop and a json_schema response format', async () => {
    await createLlmClient('openai:gpt-test', { env: fakeProviderEnv(server) }).complete(request);
    const seen = server.requests.at(-1)!;
    expect(seen.headers.authorization).toBe('Bearer fake-openai-key');
    expect(seen.body).toMatchObject({
      model: 'gpt-test',
      max_tokens: 321,
      temperature: 0,
      stop: ['END'],
      seed: 42,
      response_format: { type: 'json_schema', json_schema: { name: 'grade', strict: false } },
      messages: [
        { role: 'system', content: 'You grade slides.' },
        {
          role: 'user',
          content: [
            {
              type: 'file',
              file: {
                filename: 'source.pdf',
                file_data: `data:application/pdf;base64,${Buffer.from(pdf).toString('base64')}`,
              },
            },
            {
              type: 'image_url',
              image_url: { url: `data:image/png;base64,${Buffer.from(png).toString('base64')}` },
            },
            { type: 'text', text: 'Grade slide 1.' },
          ],
        },
      ],
    });
  });

  it('openai: an image in an assistant message fails at once, is not retried and sends nothing', async () => {
    const before = server.requestCount;
    const error = await createLlmClient('openai:gpt-test', { env: fakeProviderEnv(server) })
      .complete({
        messages: [
          { role: 'user', content: 'draw' },
          { role: 'assistant', content: [{ type: 'image', mediaType: 'image/png', data: png }] },
          { role: 'user', content: 'again' },
        ],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe('unexpected');
    expect((error as ProviderError).retryable).toBe(false);
    expect((error as ProviderError).message).toContain('assistant message may hold text parts only');
    expect(server.requestCount - before).toBe(0);
  });

  it('a caller abort stops the call without retries', async () => {
    server.setHandler(() => ({ fault: { kind: 'stall', ms: 2_000 } }));
    const controller = new AbortController();
    const before = server.requestCount;
    setTimeout(() => controller.abort(new Error('user cancelled')), 100);
    const error = await createLlmClient('openai:gpt-test', { env: fakeProviderEnv(server) })
      .complete(request, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe('user cancelled');
    expect(server.requestCount - before).toBe(1);
    server.setHandler(() => ({ text: '{"ok": true}' }));
  });
});

describe('toOpenAiBody for api.openai.com', () => {
  it('names the marked prefix with a prompt_cache_key that ignores what follows it', () => {
    const ask = (question: string): CompletionRequest => ({
      system: 's',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'shared deck', cacheBreakpoint: true },
            { type: 'text', text: question },
          ],
        },
      ],
      maxTokens: 10,
    });
    const a = toOpenAiBody(ask('q1'), 'gpt-4o', true);
    const b = toOpenAiBody(ask('q2'), 'gpt-4o', true);
    expect(a.prompt_cache_key).toMatch(/^xsb-[0-9a-f]{32}$/);
    expect(a.prompt_cache_key).toBe(b.prompt_cache_key);
    expect(a.max_completion_tokens).toBe(10);
    expect(a).not.toHaveProperty('max_tokens');
    const compatible = toOpenAiBody(ask('q1'), 'llama', false);
    expect(compatible).not.toHaveProperty('prompt_cache_key');
    expect(compatible.max_tokens).toBe(10);
  });
});

describe('toAnthropicBody', () => {
  it('keeps cache_control on the last four breakpoints only (the API refuses a fifth)', () => {
    const parts = Array.from({ length: 6 }, (_, i) => ({
      type: 'text' as const,
      text: `part ${i}`,
      cacheBreakpoint: i !== 2,
    }));
    const body = toAnthropicBody(
      {
        messages: [
          { role: 'user', content: parts.slice(0, 3) },
          { role: 'assistant', content: 'noted' },
          { role: 'user', content: parts.slice(3) },
        ],
      },
      'claude-test',
    );
    const marked = body.messages.flatMap((message) =>
      typeof message.content === 'string'
        ? []
        : message.content
            .filter((block) => 'cache_control' in block)
            .map((block) => (block as { text: string }).text),
    );
    expect(marked).toEqual(['part 1', 'part 3', 'part 4', 'part 5']);
  });
});

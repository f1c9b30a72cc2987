import { ConfigError } from '@xsb/core';
import { describe, expect, it } from 'vitest';
import type { LlmClient } from './completion-types';
import { createJudge, describeJudge, judgeFromClient, offlineJudge } from './judge';

describe('describeJudge', () => {
  it('the lexical judge is offline and reads no images, batches nothing, caches nothing', () => {
    expect(describeJudge('lexical')).toEqual({
      id: 'lexical',
      kind: 'offline',
      capabilities: { readsImages: false, batch: false, promptCache: false },
    });
  });

  it('a provider judge is a model that reads images, batches and caches prompts; overrides narrow it', () => {
    expect(describeJudge('anthropic:claude-x')).toMatchObject({
      kind: 'model',
      capabilities: { readsImages: true, batch: true, promptCache: true },
    });
    expect(describeJudge('openai:gpt-x', { readsImages: false }).capabilities.readsImages).toBe(false);
  });

  it('a replay store is its own kind and has no batch API; a record store is a model judge', () => {
    expect(describeJudge('replay:store.jsonl')).toMatchObject({
      kind: 'replay',
      capabilities: { batch: false },
    });
    expect(describeJudge('record:store.jsonl').kind).toBe('model');
  });

  it('an unknown spec is a ConfigError listing the accepted forms', () => {
    expect(() => describeJudge('gpt4')).toThrow(ConfigError);
  });
});

describe('createJudge', () => {
  it('builds the offline judge without a client, and a model judge with one (no key → ConfigError)', () => {
    expect(createJudge('lexical')).toEqual(offlineJudge);
    expect(() => createJudge('anthropic:claude-x', { env: {} })).toThrow(/ANTHROPIC_API_KEY/);
    const judge = createJudge('anthropic:claude-x', { env: { ANTHROPIC_API_KEY: 'k' } });
    expect(judge.kind).toBe('model');
    expect(judge.client).not.toBeNull();
  });

  it('wraps a caller-held client as a model judge with the capabilities it is given', () => {
    const client = {} as LlmClient;
    const judge = judgeFromClient('scripted', client, { readsImages: false });
    expect(judge).toMatchObject({
      id: 'scripted',
      kind: 'model',
      client,
      capabilities: { readsImages: false },
    });
  });
});

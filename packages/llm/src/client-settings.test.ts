import { resolve } from 'node:path';
import { UsageError } from '@xsb/core';
import { describe, expect, it } from 'vitest';
import { batchOptionsForJudge, clientSettingsFromConfig, runLedgerFile } from './client-settings';

const config = {
  judge: 'anthropic:claude-x',
  cacheDir: 'cache',
  noCache: false,
  refresh: true,
  providers: { anthropic: { maxConcurrency: 3 } },
  prices: {},
  dataDir: 'data',
  run: 'r1',
};

describe('client settings from a configuration', () => {
  it('resolves the cache folder against cwd and takes the limits of the judge provider', () => {
    const settings = clientSettingsFromConfig(config, '/work', { K: 'v' });
    expect(settings).toEqual({
      env: { K: 'v' },
      cacheDir: resolve('/work', 'cache'),
      noCache: false,
      refresh: true,
      limits: { maxConcurrency: 3 },
      prices: {},
    });
    expect(clientSettingsFromConfig({ ...config, judge: 'openai:gpt-x' }, '/work', {})).not.toHaveProperty(
      'limits',
    );
  });

  it('leaves unset settings out', () => {
    const settings = clientSettingsFromConfig(
      { ...config, noCache: undefined, refresh: undefined } as never,
      '/w',
      {},
    );
    expect(Object.keys(settings).sort()).toEqual(['cacheDir', 'env', 'limits', 'prices']);
  });

  it("the run ledger is the run layout's", () => {
    expect(runLedgerFile(config, '/work')).toBe(resolve('/work/data/runs/r1/usage_ledger.jsonl'));
  });
});

describe('batchOptionsForJudge', () => {
  it('a provider judge batches, with resubmit as the default fallback', () => {
    const options = batchOptionsForJudge('openai:gpt-x', {
      stateDir: '/s',
      settings: { maxRequestsPerBatch: 5 },
    });
    expect(options).toMatchObject({ stateDir: '/s', fallback: 'resubmit', maxRequestsPerBatch: 5 });
  });

  it('the offline judge, a replay or a record store cannot batch; an unknown fallback is refused', () => {
    expect(() => batchOptionsForJudge('lexical', { stateDir: '/s' })).toThrow(/lexical judge is offline/);
    expect(() => batchOptionsForJudge('replay:x.jsonl', { stateDir: '/s' })).toThrow(
      /answers from its store/,
    );
    expect(() => batchOptionsForJudge('record:x.jsonl', { stateDir: '/s' })).toThrow(UsageError);
    expect(() => batchOptionsForJudge('openai:gpt-x', { stateDir: '/s', fallback: 'later' })).toThrow(
      /resubmit or online/,
    );
  });
});

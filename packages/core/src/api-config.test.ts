import { describe, expect, it } from 'vitest';
import { ConfigError } from './errors';
import { loadConfig } from './xsb-config';

const SHA = 'a'.repeat(64);

describe('config api section', () => {
  it('has defaults, and takes tokens only as sha256 hashes with known scopes', () => {
    const { config } = loadConfig({ cwd: '/', env: {} });
    expect(config.api).toEqual({
      tokens: [],
      rateLimitPerMinute: 600,
      bodyLimitMb: 100,
      workers: 2,
      processes: 1,
      drainTimeoutS: 30,
    });
    const set = loadConfig({
      cwd: '/',
      env: {},
      flags: { api: { tokens: [{ name: 'dash', sha256: SHA, scopes: ['read'] }], workers: 4 } },
    });
    expect(set.config.api).toMatchObject({ workers: 4, tokens: [{ name: 'dash', scopes: ['read'] }] });
    expect(() =>
      loadConfig({
        cwd: '/',
        env: {},
        flags: { api: { tokens: [{ name: 'x', sha256: 'plain-token', scopes: ['read'] }] } },
      }),
    ).toThrow(ConfigError);
    expect(() =>
      loadConfig({
        cwd: '/',
        env: {},
        flags: { api: { tokens: [{ name: 'x', sha256: SHA, scopes: ['superuser' as 'read'] }] } },
      }),
    ).toThrow(/"api\.tokens\[0\]\.scopes\[0\]" Invalid option/);
  });
});

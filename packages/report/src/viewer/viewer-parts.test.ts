import { InputError, InternalError, UsageError } from '@xsb/core';
import { describe, expect, it } from 'vitest';
import { errorPage, viewerPort } from './start-report-viewer';

describe('viewerPort', () => {
  it('takes 7575 by default, 0 and any port up to 65535, on the loopback host only', () => {
    expect(viewerPort({})).toBe(7575);
    expect(viewerPort({ port: 0, host: 'localhost' })).toBe(0);
    expect(() => viewerPort({ port: 65536 })).toThrow(UsageError);
    expect(() => viewerPort({ port: 1.5 })).toThrow(/integer from 0 to 65535/);
    expect(() => viewerPort({ host: '0.0.0.0' })).toThrow(/127\.0\.0\.1 only/);
  });
});

describe('errorPage', () => {
  it('is 422 for a user error, 500 for an internal or unknown one, and escapes the message', () => {
    const bad = errorPage(new InputError('bad <row>', { file: 'summary.json' }), '/data');
    expect(bad.status).toBe(422);
    expect(bad.html).toContain('bad &lt;row&gt;');
    expect(errorPage(new InternalError('oops'), '/data').status).toBe(500);
    expect(errorPage(new Error('boom'), '/data').status).toBe(500);
  });
});

import { describe, expect, it } from 'vitest';
import { chromiumPath, chromiumUnavailableReason } from './testing';

describe('locating Chromium for the browser tests', () => {
  const missing = '/nonexistent/xsb-test/chromium';

  it('uses CHROMIUM_PATH when set, else /usr/bin/chromium', () => {
    expect(chromiumPath({ CHROMIUM_PATH: '/opt/chrome/chrome' })).toBe('/opt/chrome/chrome');
    expect(chromiumPath({})).toBe('/usr/bin/chromium');
    expect(chromiumPath({ CHROMIUM_PATH: '' })).toBe('/usr/bin/chromium');
  });

  it('gives a reason to skip outside CI, and fails naming the path under CI=true', () => {
    expect(chromiumUnavailableReason({ CHROMIUM_PATH: missing })).toMatch(`Chromium not found at ${missing}`);
    expect(() => chromiumUnavailableReason({ CHROMIUM_PATH: missing, CI: 'true' })).toThrow(
      /Chromium not found at \/nonexistent\/xsb-test\/chromium .*CI=true must run the browser tests/,
    );
    expect(chromiumUnavailableReason({ CHROMIUM_PATH: process.execPath, CI: 'true' })).toBeNull();
  });
});

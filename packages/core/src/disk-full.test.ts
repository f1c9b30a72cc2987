import { describe, expect, it } from 'vitest';
import { isDiskFull } from './disk-full';
import { InputError } from './errors';

const errno = (code: string) => Object.assign(new Error(`${code}: no space left on device, write`), { code });

describe('isDiskFull', () => {
  it('knows ENOSPC and EDQUOT, also as the cause of another error, and nothing else', () => {
    expect(isDiskFull(errno('ENOSPC'))).toBe(true);
    expect(isDiskFull(errno('EDQUOT'))).toBe(true);
    expect(isDiskFull(errno('SQLITE_FULL'))).toBe(true);
    expect(isDiskFull(new InputError('copying the deck failed', { cause: errno('ENOSPC') }))).toBe(true);
    expect(isDiskFull(errno('EACCES'))).toBe(false);
    expect(isDiskFull(new Error('ENOSPC in a message only'))).toBe(false);
    expect(isDiskFull(undefined)).toBe(false);
  });
});

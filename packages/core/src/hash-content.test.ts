import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson, hashBytes, hashCanonicalJson, hashFile } from './hash-content';
import { makeTempDir } from './testing';

describe('content hashing', () => {
  it('canonical JSON sorts keys at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[1,{"y":2,"z":1}]},"b":1}',
    );
    expect(hashCanonicalJson({ x: 1, y: 2 })).toBe(hashCanonicalJson({ y: 2, x: 1 }));
    expect(hashCanonicalJson({ x: 1 })).not.toBe(hashCanonicalJson({ x: 2 }));
  });

  it('refuses values JSON cannot carry instead of hashing them as null', () => {
    expect(() => canonicalJson({ x: Number.NaN })).toThrow(/non-finite/);
    expect(() => canonicalJson({ x: () => 1 })).toThrow(/cannot encode/);
  });

  it('hashes a file by its bytes', async () => {
    const { dir, cleanup } = await makeTempDir();
    const file = join(dir, 'f.bin');
    const bytes = Buffer.alloc(300_000, 7);
    await writeFile(file, bytes);
    expect(await hashFile(file)).toBe(hashBytes(bytes));
    expect(hashBytes('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    await cleanup();
  });
});

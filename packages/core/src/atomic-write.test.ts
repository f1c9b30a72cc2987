import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from './atomic-write';
import { makeTempDir } from './testing';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
});
afterEach(() => cleanup());

describe('writeFileAtomic', () => {
  it('creates folders, writes the content and leaves no temp file', async () => {
    const file = join(dir, 'a', 'b', 'out.json');
    await writeFileAtomic(file, '{"x":1}');
    expect(await readFile(file, 'utf8')).toBe('{"x":1}');
    expect(await readdir(join(dir, 'a', 'b'))).toEqual(['out.json']);
  });

  it('concurrent writers leave one complete version, never a mix', async () => {
    const file = join(dir, 'out.txt');
    const versions = Array.from({ length: 20 }, (_, i) => String(i).repeat(50_000));
    await Promise.all(versions.map((v) => writeFileAtomic(file, v)));
    expect(versions).toContain(await readFile(file, 'utf8'));
    expect(await readdir(dir)).toEqual(['out.txt']);
  });

  it('keeps the old content and cleans up when the write fails', async () => {
    const sub = join(dir, 'ro');
    await mkdir(sub);
    const file = join(sub, 'keep.txt');
    await writeFile(file, 'old');
    // A folder where the target should be makes the rename fail after the temp file was written.
    const blocked = join(sub, 'blocked');
    await mkdir(join(blocked, 'child'), { recursive: true });
    await expect(writeFileAtomic(blocked, 'new')).rejects.toThrow();
    expect(await readFile(file, 'utf8')).toBe('old');
    expect((await readdir(sub)).sort()).toEqual(['blocked', 'keep.txt']);
    await chmod(sub, 0o755);
  });
});

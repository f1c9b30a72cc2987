import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlideRenderStore } from './slide-render-store';

let root: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-render-store-'));
});
afterAll(() => cleanup());

const sha = 'a'.repeat(64);
const png = (n: number) => new Uint8Array([0x89, 0x50, 0x4e, 0x47, n]);

describe('SlideRenderStore', () => {
  it('returns the pages stored at exactly a width, in slide order, and lists the widths narrowest first', async () => {
    const store = new SlideRenderStore(join(root, 'a'));
    expect(await store.pages(sha, 960)).toBeNull();
    const files = await store.put(sha, 960, [png(1), png(2), png(3)]);
    await store.put(sha, 400, [png(9)]);
    expect(files.map((file) => file.slice(file.lastIndexOf('/') + 1))).toEqual([
      'slide-1.png',
      'slide-2.png',
      'slide-3.png',
    ]);
    expect(await store.pages(sha, 960)).toEqual(files);
    expect([...(await readFile(files[1]!))]).toEqual([...png(2)]);
    expect(await store.widths(sha)).toEqual([400, 960]);
    expect(await store.pages(sha, 800)).toBeNull();
  });

  it('treats an interrupted write, a missing page or a damaged manifest as no pages', async () => {
    const store = new SlideRenderStore(join(root, 'b'));
    // A folder without its manifest (the write stopped before the rename): not pages.
    await mkdir(join(root, 'b', sha, 'w960'), { recursive: true });
    await writeFile(join(root, 'b', sha, 'w960', 'slide-1.png'), png(1));
    expect(await store.pages(sha, 960)).toBeNull();
    expect(await store.widths(sha)).toEqual([]);
    await writeFile(join(root, 'b', sha, 'w960', 'pages.json'), '{"width_px": 960, "pages": 2}');
    expect(await store.pages(sha, 960)).toBeNull();
    await writeFile(join(root, 'b', sha, 'w960', 'pages.json'), '{"width_px": 96');
    expect(await store.pages(sha, 960)).toBeNull();
    // Storing again replaces the damaged entry whole.
    expect(await store.put(sha, 960, [png(5), png(6)])).toHaveLength(2);
    expect(await store.pages(sha, 960)).toHaveLength(2);
  });

  it('keeps one whole entry when two writers store the same deck at once', async () => {
    const store = new SlideRenderStore(join(root, 'c'));
    const [first, second] = await Promise.all([
      store.put(sha, 960, [png(1), png(2)]),
      store.put(sha, 960, [png(1), png(2)]),
    ]);
    expect(first).toEqual(second);
    expect(await store.pages(sha, 960)).toHaveLength(2);
  });

  it('refuses a key that is not a sha256, so no path can leave the store', async () => {
    const store = new SlideRenderStore(join(root, 'd'));
    await expect(store.put('../../etc', 960, [png(1)])).rejects.toThrow(/not a sha256/);
    expect(await store.widths('../x')).toEqual([]);
  });
});

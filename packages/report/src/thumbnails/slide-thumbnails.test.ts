import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hashFile } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { readDeck } from '@xsb/decks';
import { writeLayoutFixtureDecks } from '@xsb/rubric/testing';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturesDir } from '../testing';
import { prepareThumbnails, type ThumbnailRequest } from './slide-thumbnails';

let dir: string;
let cleanup: () => Promise<void>;
let pdf: ThumbnailRequest;
let pptx: ThumbnailRequest;

const request = async (path: string): Promise<ThumbnailRequest> => ({
  sha256: await hashFile(path),
  path,
  slideWidth: (await readDeck(path)).slide_width,
});

async function widthOf(dataUri: string): Promise<{ width?: number; format?: string }> {
  const bytes = Buffer.from(dataUri.replace(/^data:image\/webp;base64,/, ''), 'base64');
  const { width, format } = await sharp(bytes).metadata();
  return { width, format };
}

beforeAll(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-report-thumbs-'));
  pdf = await request(join(fixturesDir(), 'demo', 'notebooklm', 'energy_heat_pump_pilot.pdf'));
  await mkdir(join(dir, 'decks'));
  pptx = await request((await writeLayoutFixtureDecks(join(dir, 'decks'))).clean);
});
afterAll(() => cleanup());

describe('prepareThumbnails', () => {
  it('renders PDF pages to WebP of the asked width and reuses the cache on the next build', async () => {
    const cacheDir = join(dir, 'cache-pdf');
    const first = (await prepareThumbnails([pdf], { size: 'small', cacheDir })).get(pdf.sha256)!;
    expect(first.note).toBeNull();
    expect(first.rendered).toBe(true);
    expect(first.slides).toHaveLength(6);
    expect(await widthOf(first.slides[0]!)).toEqual({ width: 320, format: 'webp' });
    expect(await readdir(join(cacheDir, 'thumbnails', pdf.sha256))).toEqual(['small.json']);

    const again = (await prepareThumbnails([pdf], { size: 'small', cacheDir })).get(pdf.sha256)!;
    expect(again.rendered).toBe(false);
    expect(again.slides).toEqual(first.slides);

    const large = (await prepareThumbnails([pdf], { size: 'large', cacheDir })).get(pdf.sha256)!;
    expect(await widthOf(large.slides[0]!)).toEqual({ width: 800, format: 'webp' });
  });

  it('renders PPTX decks through LibreOffice, in one batch', async () => {
    const result = (
      await prepareThumbnails([pptx], { size: 'small', cacheDir: join(dir, 'cache-pptx') })
    ).get(pptx.sha256)!;
    expect(result.note).toBeNull();
    expect(result.slides).toHaveLength((await readDeck(pptx.path)).slide_count);
  }, 120_000);

  it('gives a note instead of failing when LibreOffice is missing or a deck is broken', async () => {
    const broken = join(dir, 'broken.pptx');
    await writeFile(broken, 'not a zip at all');
    const brokenRequest = { sha256: 'f'.repeat(64), path: broken };
    const result = await prepareThumbnails([pptx, pdf, brokenRequest], {
      size: 'small',
      cacheDir: join(dir, 'cache-nosoffice'),
      env: { PATH: '' },
    });
    expect(result.get(pptx.sha256)?.slides).toEqual([]);
    expect(result.get(pptx.sha256)?.note).toMatch(/needs LibreOffice.*apt-get install/);
    expect(result.get(pdf.sha256)?.slides).toHaveLength(6);
    expect(result.get(brokenRequest.sha256)?.note).toMatch(/not a deck/);
    expect((await prepareThumbnails([pdf], { size: 'off', cacheDir: dir })).get(pdf.sha256)?.note).toMatch(
      /off/,
    );
  });
});

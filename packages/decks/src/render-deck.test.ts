import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findSoffice, renderDeck } from './render-deck';

const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), '../../../fixtures/decks');
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-render-'));
});
afterEach(async () => cleanup());

function hasSoffice(): boolean {
  try {
    findSoffice();
    return true;
  } catch {
    return false;
  }
}

describe('renderDeck', () => {
  it('renders PDF pages to PNG files in slide order, honouring maxSlides', async () => {
    const files = await renderDeck(join(fixtures, 'notebooklm', 'cs_raft_consensus.pdf'), {
      outDir: join(dir, 'png'),
      scale: 0.5,
      maxSlides: 2,
    });
    expect(files).toEqual([join(dir, 'png', 'slide-001.png'), join(dir, 'png', 'slide-002.png')]);
    const png = await readFile(files[0] ?? '');
    expect(png.subarray(0, 4).equals(PNG_SIGNATURE)).toBe(true);
    // 16:9 page at 0.5 px/pt: 360 px wide (IHDR width at byte 16).
    expect(png.readUInt32BE(16)).toBe(360);
    expect(existsSync(join(dir, 'png', 'slide-003.png'))).toBe(false);
  });

  it('names the Debian package when soffice is missing', async () => {
    await expect(
      renderDeck(join(fixtures, 'cs_raft_consensus.baseline.pptx'), {
        outDir: dir,
        env: { PATH: '/nonexistent' },
      }),
    ).rejects.toThrow(/apt-get install --no-install-recommends libreoffice-impress-nogui/);
  });

  it('fails an encrypted or non-deck file with the file name', async () => {
    await writeFile(join(dir, 'x.pdf'), 'hello');
    await expect(renderDeck(join(dir, 'x.pdf'), { outDir: dir })).rejects.toThrow(
      `${join(dir, 'x.pdf')}: not a deck`,
    );
  });

  // Needs LibreOffice, a system package. CI (.ci/run) installs libreoffice-impress-nogui and this test is
  // mandatory there; on a developer machine without it the test is skipped with this reason rather than
  // failing `pnpm test` for a missing system package.
  it.skipIf(!hasSoffice() && !process.env.CI)('renders a PPTX through LibreOffice', async () => {
    expect(
      hasSoffice(),
      'soffice missing: apt-get install --no-install-recommends libreoffice-impress-nogui',
    ).toBe(true);
    const files = await renderDeck(join(fixtures, 'cs_raft_consensus.baseline.pptx'), {
      outDir: join(dir, 'pptx'),
      scale: 0.5,
    });
    expect(files).toHaveLength(8);
    expect((await readFile(files[7] ?? '')).subarray(0, 4).equals(PNG_SIGNATURE)).toBe(true);
  });
});

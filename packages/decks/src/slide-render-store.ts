import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/** Written last into a width's folder: a folder without it is an interrupted write, not pages. */
const MANIFEST = 'pages.json';
const manifestSchema = z.object({ width_px: z.number().int().min(1), pages: z.number().int().min(0) });

const isSha256 = (value: string) => /^[0-9a-f]{64}$/.test(value);

/**
 * Rendered slide pages (PNG, `slide-<n>.png`, 1-based) kept by deck content and page width, so every stage
 * that looks at a deck's pages renders it once: LibreOffice's conversion is the slow step (seconds a deck),
 * and the pixels of one deck at one width do not change. A width's folder appears whole or not at all (written
 * beside it, then renamed), so a reader never sees half a deck.
 */
export class SlideRenderStore {
  constructor(readonly dir: string) {}

  private folder(sha256: string, widthPx: number): string {
    if (!isSha256(sha256)) throw new Error(`not a sha256 hex digest: ${JSON.stringify(sha256)}`);
    return join(this.dir, sha256, `w${widthPx}`);
  }

  /** The stored pages of a deck at exactly this width, in slide order; null when none are stored. */
  async pages(sha256: string, widthPx: number): Promise<string[] | null> {
    const folder = this.folder(sha256, widthPx);
    const manifestFile = join(folder, MANIFEST);
    if (!existsSync(manifestFile)) return null;
    try {
      const manifest = manifestSchema.parse(JSON.parse(await readFile(manifestFile, 'utf8')));
      const files = Array.from({ length: manifest.pages }, (_, i) => join(folder, `slide-${i + 1}.png`));
      return files.every((file) => existsSync(file)) ? files : null;
    } catch {
      return null; // a damaged entry is rendered again
    }
  }

  /** The widths stored for a deck, narrowest first. */
  async widths(sha256: string): Promise<number[]> {
    const deckDir = join(this.dir, sha256);
    if (!isSha256(sha256) || !existsSync(deckDir)) return [];
    const widths: number[] = [];
    for (const name of await readdir(deckDir)) {
      const match = /^w(\d+)$/.exec(name);
      if (match && existsSync(join(deckDir, name, MANIFEST))) widths.push(Number(match[1]));
    }
    return widths.sort((a, b) => a - b);
  }

  /** Stores a deck's pages at a width (PNG bytes in slide order), replacing what was there, and returns their files. */
  async put(sha256: string, widthPx: number, pngs: readonly Uint8Array[]): Promise<string[]> {
    const folder = this.folder(sha256, widthPx);
    const tag = `${process.pid}-${Math.random().toString(36).slice(2)}`;
    const staging = `${folder}.partial-${tag}`;
    const replaced = `${folder}.old-${tag}`;
    await mkdir(staging, { recursive: true });
    try {
      for (const [i, png] of pngs.entries()) await writeFile(join(staging, `slide-${i + 1}.png`), png);
      await writeFile(
        join(staging, MANIFEST),
        `${JSON.stringify({ width_px: widthPx, pages: pngs.length })}\n`,
      );
      // Moved aside rather than deleted in place, so a reader sees the old entry or the new one, never half.
      await rename(folder, replaced).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
      await rename(staging, folder);
    } catch (error) {
      // Another writer put the same deck between our two renames: its pages are as good as ours.
      if ((await this.pages(sha256, widthPx)) === null) throw error;
    } finally {
      await rm(staging, { recursive: true, force: true });
      await rm(replaced, { recursive: true, force: true });
    }
    return Array.from({ length: pngs.length }, (_, i) => join(folder, `slide-${i + 1}.png`));
  }
}

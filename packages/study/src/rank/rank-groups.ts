import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compareCodePoints, hashFile, isXsbError, RunLayout, recordedInputHash } from '@xsb/core';
import { readDeck, SlideRenderStore } from '@xsb/decks';
import { storedSlidePages } from '@xsb/design';
import { discoverDeckRows } from '@xsb/eval';
import { loadSourceCase } from '@xsb/sources';
import type { RankGroup } from './rank-work-list';

/** Which decks the ranking judge compares: a run, optionally narrowed. */
export interface RankSelection {
  dataDir: string;
  run: string;
  /** `soffice` and the environment for rendering PPTX slides (a judge that reads images sees them). */
  soffice?: string;
  env?: Record<string, string | undefined>;
  systems?: readonly string[];
  cases?: readonly string[];
  audiences?: readonly string[];
}

const systemOf = (row: { system: string; condition: string }) => `${row.system}__${row.condition}`;

/**
 * Each case and audience with the decks of two or more selected systems (their files in `dir`, with the input
 * hash each records); a deck that cannot be read is a failure and stays out of its groups.
 */
export async function rankGroups(
  options: RankSelection,
  dir: string,
  failures: Array<{ where: string; error: string }>,
  images = false,
): Promise<RankGroup[]> {
  const layout = new RunLayout(options.dataDir);
  const { rows } = await discoverDeckRows(layout, options.run);
  const selected = rows.filter(
    (row) =>
      (!options.systems || options.systems.includes(systemOf(row))) &&
      (!options.cases || options.cases.includes(row.caseLabel)),
  );
  const store = new SlideRenderStore(layout.slideRendersDir(options.run));
  const decks = new Map<string, RankGroup['decks'] extends Map<string, infer D> ? D | null : never>();
  const deckOf = async (file: string) => {
    if (!decks.has(file))
      try {
        const [sha256, deck] = await Promise.all([hashFile(file), readDeck(file)]);
        const pages = images
          ? await storedSlidePages(
              file,
              deck.slide_width,
              {
                renderStore: store,
                ...(options.soffice ? { soffice: options.soffice } : {}),
                ...(options.env ? { env: options.env } : {}),
              },
              sha256,
            )
          : [];
        decks.set(file, {
          file,
          sha256,
          deck,
          ...(images
            ? { images: await Promise.all(pages.map(async (page) => new Uint8Array(await readFile(page)))) }
            : {}),
        });
      } catch (error) {
        if (!isXsbError(error)) throw error;
        failures.push({ where: file, error: error.message });
        decks.set(file, null);
      }
    return decks.get(file)!;
  };
  const groups: RankGroup[] = [];
  for (const caseLabel of [...new Set(selected.map((row) => row.caseLabel))].sort(compareCodePoints)) {
    const metadata = (await loadSourceCase(options.dataDir, caseLabel)).metadata;
    for (const audience of metadata.valid_audiences) {
      if (options.audiences && !options.audiences.includes(audience)) continue;
      const members: RankGroup['decks'] = new Map();
      for (const row of selected.filter((r) => r.caseLabel === caseLabel)) {
        if (row.condition !== 'audience_agnostic' && row.deckAudience !== audience) continue;
        const deck = await deckOf(row.deckFile);
        if (deck) members.set(systemOf(row), deck);
      }
      if (members.size < 2) continue;
      const file = join(dir, audience, `${caseLabel}.json`);
      groups.push({
        caseLabel,
        audience,
        scene: metadata.scene,
        systems: [...members.keys()].sort(compareCodePoints),
        decks: members,
        file,
        existingHash: await recordedInputHash(file),
      });
    }
  }
  return groups;
}

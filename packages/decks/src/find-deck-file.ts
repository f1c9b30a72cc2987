import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '@xsb/core';

/** The deck of a deck folder; a PPTX wins over a PDF (a generated deck and its rendered PDF). */
export async function findDeckFile(deckDir: string): Promise<string | undefined> {
  let names: string[];
  try {
    names = (await readdir(deckDir)).filter((name) => !name.startsWith('.')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new InputError(`cannot list the deck folder (${(error as Error).message})`, { file: deckDir });
  }
  const pptx = names.filter((name) => name.toLowerCase().endsWith('.pptx'));
  const pdf = names.filter((name) => name.toLowerCase().endsWith('.pdf'));
  const candidates = pptx.length > 0 ? pptx : pdf;
  if (candidates.length > 1) {
    throw new InputError(`the deck folder holds several decks (${candidates.join(', ')}); keep one`, {
      file: deckDir,
      code: 'ambiguous_deck',
    });
  }
  return candidates[0] ? join(deckDir, candidates[0]) : undefined;
}

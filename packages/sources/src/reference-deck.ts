import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '@xsb/core';

/** A case's human-made reference deck sits beside its source under one of these names; it is not a source. */
export const REFERENCE_DECK_NAMES = ['reference.pptx', 'reference.pdf'] as const;

/** The case folder's reference deck, or null; both names at once is ambiguous. */
export function findReferenceDeck(caseDir: string): string | null {
  const present = REFERENCE_DECK_NAMES.filter((name) => existsSync(join(caseDir, name)));
  if (present.length > 1)
    throw new InputError(`two reference decks (${present.join(', ')}): keep one`, {
      file: caseDir,
      code: 'ambiguous_deck',
    });
  return present.length === 1 ? join(caseDir, present[0]!) : null;
}

import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Copies a staged upload to `target` atomically (a hidden temp file in the same folder, then a rename),
 * so the deck tree never holds half a deck; with `replaces`, sibling files of those names (the same
 * deck in the other format, from an earlier job) are removed so the folder holds this one deck.
 */
export async function placeDeck(
  staged: string,
  target: string,
  replaces: readonly string[] = [],
): Promise<string> {
  const dir = dirname(target);
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `.${basename(target)}.${randomUUID().slice(0, 8)}.tmp`);
  try {
    await copyFile(staged, temp);
    await rename(temp, target);
  } finally {
    await rm(temp, { force: true });
  }
  for (const name of replaces) if (name !== basename(target)) await rm(join(dir, name), { force: true });
  return target;
}

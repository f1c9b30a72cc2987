import { existsSync } from 'node:fs';
import { mkdir, open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { validateRecord } from '@xsb/core';
import { type BenchTestLedgerEntry, benchTestLedgerEntrySchema } from '../schemas/bench-test-ledger';

/**
 * Appends one opening of the sealed test split and syncs it to disk before returning, so the ledger
 * records that a run looked at test even if the run dies at its first judge call. Never rewritten.
 */
export async function appendTestLedger(file: string, entry: BenchTestLedgerEntry): Promise<void> {
  const value = validateRecord(benchTestLedgerEntrySchema, entry, { file });
  await mkdir(dirname(file), { recursive: true });
  const handle = await open(file, 'a');
  try {
    await handle.write(`${JSON.stringify(value)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** How many times the test split was opened (non-blank ledger lines). */
export async function countTestLedger(file: string): Promise<number> {
  if (!existsSync(file)) return 0;
  return (await readFile(file, 'utf8')).split('\n').filter((line) => line.trim() !== '').length;
}

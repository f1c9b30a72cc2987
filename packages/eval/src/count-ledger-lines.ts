import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

/** Lines in a usage ledger (0 when there is none): one per judge call, lexical calls included. */
export async function countLedgerLines(file: string): Promise<number> {
  if (!existsSync(file)) return 0;
  return (await readFile(file, 'utf8')).split('\n').filter((line) => line.trim() !== '').length;
}

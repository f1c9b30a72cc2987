import { existsSync } from 'node:fs';
import { JsonlWriter, readJsonlAll, withDirectoryLock } from '@xsb/core';
import type { BenchLayout } from '../bench-layout';
import { type BenchSplitRow, benchSplitRowSchema } from '../schemas/bench-split';
import { assignSplits } from './assign-splits';
import type { BenchCase } from './bench-cases';

/** The stored split rows (none when `splits.jsonl` does not exist yet). */
export async function readSplits(layout: BenchLayout): Promise<BenchSplitRow[]> {
  const file = layout.splitsFile();
  return existsSync(file) ? readJsonlAll(file, benchSplitRowSchema) : [];
}

export interface SplitResult {
  rows: BenchSplitRow[];
  added: BenchSplitRow[];
}

/**
 * `xsb bench split`: gives every case without a split row one, appended to `splits.jsonl` under the
 * bench folder's lock (two splitters never assign a case twice); existing rows stay as they are.
 */
export async function splitCases(
  layout: BenchLayout,
  cases: readonly BenchCase[],
  options: { testShare?: number; now?: Date } = {},
): Promise<SplitResult> {
  return withDirectoryLock(layout.benchDir(), async () => {
    const existing = await readSplits(layout);
    const added = assignSplits(
      existing,
      cases.map((c) => ({ case: c.case, kind: c.kind, stratum: c.stratum })),
      {
        ...(options.testShare !== undefined ? { testShare: options.testShare } : {}),
        now: options.now ?? new Date(),
      },
    );
    if (added.length > 0) {
      const writer = await JsonlWriter.open(layout.splitsFile(), benchSplitRowSchema);
      try {
        for (const row of added) await writer.write(row);
      } finally {
        await writer.close();
      }
    }
    return { rows: [...existing, ...added], added };
  });
}

import { join } from 'node:path';
import { isXsbError, RunLayout, UsageError } from '@xsb/core';
import { discoverDeckRows } from '@xsb/eval';
import type { PerturbationRecord } from '../schemas/meta-perturbation';
import { type PerturbDeckOptions, perturbDeck } from './perturb-deck';

export interface PerturbRunOptions extends Omit<PerturbDeckOptions, 'deck' | 'outDir'> {
  dataDir: string;
  run: string;
  /** Each deck's perturbations go to `<outDir>/<system>/<condition>/<audience>/<case>/`. */
  outDir: string;
}

/**
 * `xsb meta perturb`: every deck of a run into its own folder (decks of one run share file names); a deck
 * that cannot be read becomes a failure and the others go on.
 */
export async function perturbRun(options: PerturbRunOptions): Promise<{
  records: PerturbationRecord[];
  failures: Array<{ where: string; error: string }>;
}> {
  const layout = new RunLayout(options.dataDir);
  const { rows, failures: discovery } = await discoverDeckRows(layout, options.run);
  if (rows.length === 0 && discovery.length > 0) throw new UsageError(discovery[0]!.error.message);
  const records: PerturbationRecord[] = [];
  const failures = discovery.map((failure) => ({ where: failure.where, error: failure.error.message }));
  for (const row of rows) {
    try {
      const result = await perturbDeck({
        ...options,
        deck: row.deckFile,
        outDir: join(options.outDir, row.system, row.condition, row.deckAudience, row.caseLabel),
      });
      records.push(...result.records);
    } catch (error) {
      if (!isXsbError(error)) throw error;
      failures.push({ where: row.deckFile, error: error.message });
    }
  }
  return { records, failures };
}

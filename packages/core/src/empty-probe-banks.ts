import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { compareCodePoints } from './compare-code-points';
import { emptyProbeBankNote } from './empty-probe-bank-note';
import { readJson } from './json-file';
import type { RunLayout } from './run-layout';
import { probeGenerationStatusSchema } from './schemas/probe-generation-status';

/** Cases whose finished bank holds 0 probes; a case without one is missing, not empty, and not listed. */
export async function listEmptyProbeBanks(
  layout: RunLayout,
  caseLabels?: Iterable<string>,
): Promise<string[]> {
  const labels = caseLabels ? [...new Set(caseLabels)] : await probeBankFolders(layout);
  const empty: string[] = [];
  for (const label of labels) {
    let statusFile: string;
    try {
      statusFile = layout.probeStatusFile(label);
    } catch {
      continue; // not a case label a folder can have
    }
    if (!existsSync(statusFile)) continue;
    const status = await readJson(statusFile, probeGenerationStatusSchema).catch(() => undefined);
    if (status?.status === 'complete' && status.counts.final === 0) empty.push(label);
  }
  return empty.sort(compareCodePoints);
}

export async function emptyProbeBankWarnings(
  layout: RunLayout,
  caseLabels?: Iterable<string>,
): Promise<string[]> {
  return (await listEmptyProbeBanks(layout, caseLabels)).map(
    (label) => `warning: ${emptyProbeBankNote(label)}`,
  );
}

async function probeBankFolders(layout: RunLayout): Promise<string[]> {
  const root = layout.probesRoot();
  if (!existsSync(root)) return [];
  return (await readdir(root, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
}

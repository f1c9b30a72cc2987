import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { compareCodePoints } from './compare-code-points';
import { readJson } from './json-file';
import type { RunLayout } from './run-layout';
import { probeGenerationStatusSchema } from './schemas/probe-generation-status';

/**
 * What every stage after `xsb probes` says about a case whose finished probe bank is empty: its
 * coverage is null for every deck, so the case adds nothing to the comparison (a source the
 * generator found no facts in, e.g. a blind text, or a failed filter of a model's answers).
 */
export function emptyProbeBankNote(caseLabel: string): string {
  return `case ${caseLabel}: 0 probes, contributes no coverage`;
}

/**
 * The cases of a data folder whose probe bank is finished (`probe_generation_status.json` says
 * `complete`) and holds 0 probes, sorted; only among `caseLabels` when given. A case without a
 * finished bank, or with an unreadable status, is not listed: it is missing, not empty, and the
 * stages report that on their own.
 */
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

/** `warning: case X: 0 probes, contributes no coverage`, one line per empty bank (see {@link listEmptyProbeBanks}). */
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

import { existsSync } from 'node:fs';
import { compareCodePoints, type RunLayout, UsageError } from '@xsb/core';

/** The cases without a probe bank, sorted; none with one is one UsageError (stage 2 has not run), not a row per pair. */
export function requireProbeBanks(layout: RunLayout, caseLabels: readonly string[]): string[] {
  const unique = [...new Set(caseLabels)];
  const missing = unique.filter((label) => !existsSync(layout.probesFile(label))).sort(compareCodePoints);
  if (missing.length > 0 && missing.length === unique.length) {
    const shown =
      missing.length > 5
        ? `${missing.slice(0, 5).join(', ')} and ${missing.length - 5} more`
        : missing.join(', ');
    throw new UsageError(
      `no probe bank for ${missing.length === 1 ? 'case' : 'cases'} ${shown}: generate the probes first`,
      { code: 'missing_probe_bank', remedy: { step: 'probes', dataDir: layout.dataDir } },
    );
  }
  return missing;
}

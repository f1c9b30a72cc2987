import { existsSync } from 'node:fs';
import { compareCodePoints, type RunLayout, UsageError } from '@xsb/core';

/**
 * The cases (of `caseLabels`) whose probe bank (`probes_deduped.jsonl`) does not exist yet, sorted.
 * When none of them has one, stage 3 was run before stage 2: that is one usage error naming the cases
 * (exit 2, before any work), not a failed row for every case and audience. When only some lack one,
 * they are returned, so the caller fails those cases once each and weights the others.
 */
export function requireProbeBanks(layout: RunLayout, caseLabels: readonly string[]): string[] {
  const unique = [...new Set(caseLabels)];
  const missing = unique.filter((label) => !existsSync(layout.probesFile(label))).sort(compareCodePoints);
  if (missing.length > 0 && missing.length === unique.length) {
    const shown =
      missing.length > 5
        ? `${missing.slice(0, 5).join(', ')} and ${missing.length - 5} more`
        : missing.join(', ');
    throw new UsageError(
      `no probe bank for ${missing.length === 1 ? 'case' : 'cases'} ${shown}: run \`xsb probes\` first`,
      { code: 'missing_probe_bank' },
    );
  }
  return missing;
}

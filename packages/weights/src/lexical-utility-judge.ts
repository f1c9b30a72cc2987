import { type Probe, UTILITY_LEVELS } from '@xsb/core';
import { NEUTRAL_LEXICAL_PREFERENCES } from './audience-profiles';
import type { AudienceProfile, LexicalPreferences } from './schemas/audience-profile';
import type { JudgeBatchInput, JudgeBatchOutput, UtilityJudge } from './utility-judge';

/** The offline judge `lexical`: profile-based steps on the utility ladder (algorithm and blind spots: README). */
export class LexicalUtilityJudge implements UtilityJudge {
  readonly id = 'lexical';
  readonly fingerprint = 'lexical-v1';

  async judgeBatch(input: JudgeBatchInput): Promise<JudgeBatchOutput> {
    const judgments: JudgeBatchOutput['judgments'] = new Map();
    for (const probe of input.probes) judgments.set(probe.probe_id, lexicalUtility(probe, input.audience));
    return { judgments, failures: new Map() };
  }
}

export function lexicalUtility(
  probe: Probe,
  audience: AudienceProfile,
): { value: number; rationale: string } {
  const preferences: LexicalPreferences = audience.lexical ?? NEUTRAL_LEXICAL_PREFERENCES;
  const level = Math.min(3, Math.max(1, Math.round(probe.level)));
  const start = preferences.levels[level - 1]!;
  let step = UTILITY_LEVELS.indexOf(start as (typeof UTILITY_LEVELS)[number]);
  const notes = [`level ${level} starts at ${start}`];
  const themeWords = probe.theme
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  const matches = (entries: readonly string[]) =>
    entries.find((entry) =>
      themeWords.some((word) => word === entry.toLowerCase() || word.startsWith(entry.toLowerCase())),
    );
  const preferred = matches(preferences.preferredThemes);
  const avoided = matches(preferences.avoidedThemes);
  if (preferred && !avoided) {
    step += 1;
    notes.push(`theme "${probe.theme}" is preferred (${preferred}): +1`);
  } else if (avoided && !preferred) {
    step -= 1;
    notes.push(`theme "${probe.theme}" is of little use (${avoided}): -1`);
  }
  if (preferences.preferredModalities.includes(probe.modality.toLowerCase())) {
    step += 1;
    notes.push(`modality "${probe.modality}" is preferred: +1`);
  }
  const value = UTILITY_LEVELS[Math.min(UTILITY_LEVELS.length - 1, Math.max(0, step))]!;
  return { value, rationale: `lexical for ${audience.id}: ${notes.join('; ')} → ${value}` };
}

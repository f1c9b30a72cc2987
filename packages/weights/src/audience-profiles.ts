import { readFile } from 'node:fs/promises';
import { ConfigError } from '@xsb/core';
import { parse as parseYaml } from 'yaml';
import {
  type AudienceProfile,
  audienceProfilesFileSchema,
  type LexicalPreferences,
} from './schemas/audience-profile';

/** The lexical preferences of a user profile that gives none: level alone decides. */
export const NEUTRAL_LEXICAL_PREFERENCES: LexicalPreferences = {
  levels: [0.3, 0.6, 1],
  preferredThemes: [],
  avoidedThemes: [],
  preferredModalities: [],
};

export const BUILT_IN_AUDIENCES: readonly AudienceProfile[] = [
  {
    id: 'specialists',
    description:
      'Domain specialists and researchers who already know the field. They want the technical substance: methods, assumptions, experimental setup, exact quantitative results, the strength of the evidence and the limitations. Background, motivation and textbook definitions add little for them.',
    lexical: {
      levels: [0.3, 0.6, 1],
      preferredThemes: [
        'method',
        'result',
        'evidence',
        'quantitative',
        'limitation',
        'experiment',
        'data',
        'evaluation',
        'analysis',
        'technical',
      ],
      avoidedThemes: ['background', 'definition', 'motivation', 'overview', 'general'],
      preferredModalities: ['table', 'equation', 'figure'],
    },
  },
  {
    id: 'learners',
    description:
      'Students and newcomers who want to understand the topic. They need the key concepts and definitions, the main idea, how things work and why they matter, with illustrative examples. Fine numerical detail, implementation specifics and niche technicalities matter less to them.',
    lexical: {
      levels: [0.6, 1, 0.6],
      preferredThemes: ['definition', 'concept', 'background', 'motivation', 'example', 'overview', 'method'],
      avoidedThemes: ['quantitative', 'implementation', 'technical', 'citation'],
      preferredModalities: ['figure'],
    },
  },
  {
    id: 'decision_makers',
    description:
      'Executives, funders and policy makers who must decide or allocate resources. They need the conclusions, the impact, costs, risks, recommendations and the headline numbers behind them. Methodological detail and definitions matter little unless they change the decision.',
    lexical: {
      levels: [0.3, 0.6, 1],
      preferredThemes: [
        'result',
        'impact',
        'cost',
        'risk',
        'recommendation',
        'conclusion',
        'implication',
        'policy',
        'quantitative',
        'benefit',
      ],
      avoidedThemes: ['method', 'definition', 'technical', 'implementation', 'background', 'entity'],
      preferredModalities: [],
    },
  },
];

/**
 * The built-in profiles plus those of a user file (JSON or YAML: a list of `{id, description, lexical?}`
 * or `{audiences: [...]}`); a user profile with a built-in id replaces the built-in one.
 */
export async function loadAudienceProfiles(file?: string): Promise<Map<string, AudienceProfile>> {
  const profiles = new Map(BUILT_IN_AUDIENCES.map((profile) => [profile.id, profile]));
  if (!file) return profiles;
  let parsed: unknown;
  try {
    const text = await readFile(file, 'utf8');
    parsed = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ConfigError(`${file}: cannot read audience profiles (${(error as Error).message})`, {
      cause: error,
    });
  }
  const result = audienceProfilesFileSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new ConfigError(`${file}: invalid audience profiles: "${issue.path.join('.')}" ${issue.message}`);
  }
  const list = Array.isArray(result.data) ? result.data : result.data.audiences;
  for (const profile of list) profiles.set(profile.id, profile);
  return profiles;
}

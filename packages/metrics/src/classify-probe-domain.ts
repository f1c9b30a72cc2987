import type { Probe } from '@xsb/core';

/** The six information domains of spec 000's domain-wise coverage. */
export const PROBE_DOMAINS = [
  'context',
  'method',
  'evidence',
  'limitations',
  'implementation',
  'implications',
] as const;
export type ProbeDomain = (typeof PROBE_DOMAINS)[number];

/**
 * Word stems per domain. A token matches a stem when it starts with it ("limit" matches "limits",
 * "limitation"). Stems are chosen to be unambiguous within a domain; shared words are left out.
 */
export const DOMAIN_KEYWORDS: Readonly<Record<ProbeDomain, readonly string[]>> = {
  context: [
    'background',
    'motivat',
    'context',
    'overview',
    'introduc',
    'history',
    'historic',
    'problem',
    'goal',
    'purpose',
    'objective',
    'scope',
    'definition',
    'define',
    'prior',
    'related',
    'setting',
    'audience',
    'question',
    'topic',
    'who',
    'when',
    'where',
  ],
  method: [
    'method',
    'approach',
    'techniq',
    'algorithm',
    'model',
    'design',
    'architect',
    'procedur',
    'process',
    'framework',
    'mechanism',
    'pipeline',
    'train',
    'protocol',
    'analys',
    'formula',
    'estimat',
    'compute',
    'calculat',
    'how',
  ],
  evidence: [
    'result',
    'finding',
    'found',
    'evidence',
    'data',
    'experiment',
    'measur',
    'metric',
    'accura',
    'percent',
    'statistic',
    'sample',
    'compar',
    'increas',
    'decreas',
    'reduc',
    'improv',
    'perform',
    'outcome',
    'trial',
    'survey',
    'observ',
    'table',
    'figure',
    'chart',
    'graph',
    'number',
    'rate',
    'score',
    'benchmark',
  ],
  limitations: [
    'limit',
    'weakness',
    'risk',
    'caveat',
    'drawback',
    'uncertain',
    'bias',
    'fail',
    'constraint',
    'threat',
    'shortcoming',
    'error',
    'confound',
    'generaliz',
    'assumption',
    'concern',
  ],
  implementation: [
    'implement',
    'deploy',
    'cost',
    'budget',
    'timeline',
    'require',
    'tool',
    'infrastructure',
    'code',
    'software',
    'hardware',
    'install',
    'operat',
    'resource',
    'staff',
    'rollout',
    'schedule',
    'integrat',
    'maintenance',
    'setup',
    'configur',
    'step',
  ],
  implications: [
    'implication',
    'impact',
    'future',
    'recommend',
    'policy',
    'policies',
    'consequen',
    'significan',
    'benefit',
    'decision',
    'should',
    'adopt',
    'lesson',
    'takeaway',
    'conclu',
    'next',
    'mean',
    'opportunit',
    'strateg',
  ],
};

/** Ties are broken toward the more specific domain first; `context` is also the default. */
export const DOMAIN_PRECEDENCE: readonly ProbeDomain[] = [
  'limitations',
  'evidence',
  'implementation',
  'method',
  'implications',
  'context',
];

/** How much one keyword hit counts, by the field it was found in. */
export const DOMAIN_FIELD_WEIGHTS = { theme: 3, question: 2, answer: 1, modality: 1 } as const;

const NON_TEXT_MODALITIES = new Set(['table', 'figure', 'chart', 'image', 'graph', 'plot', 'diagram']);

function tokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function hits(text: string, stems: readonly string[]): number {
  let count = 0;
  for (const token of tokens(text)) if (stems.some((stem) => token.startsWith(stem))) count += 1;
  return count;
}

export type DomainClassifiable = Pick<Probe, 'theme' | 'question' | 'answer' | 'modality' | 'level'>;

/**
 * The keyword classifier of spec 000 stage 7, in order:
 * 1. a theme that names a domain (or starts with one of its stems as its first word) decides;
 * 2. otherwise each domain scores keyword hits: theme ×3, question ×2, answer ×1, modality ×1, and a
 *    non-text modality (table, figure, chart …) adds 1 to `evidence`;
 * 3. level 1 probes (recall of basic facts) add 1 to `context`; level ≥ 3 probes add 1 to `implications`;
 * 4. the highest score wins, ties go by DOMAIN_PRECEDENCE; no hit at all gives `context`.
 */
export function classifyProbeDomain(probe: DomainClassifiable): ProbeDomain {
  const themeTokens = tokens(probe.theme);
  const firstThemeToken = themeTokens[0];
  if (firstThemeToken) {
    for (const domain of DOMAIN_PRECEDENCE) {
      if (
        firstThemeToken === domain ||
        DOMAIN_KEYWORDS[domain].some((stem) => firstThemeToken.startsWith(stem))
      )
        return domain;
    }
  }
  const scores = new Map<ProbeDomain, number>();
  for (const domain of PROBE_DOMAINS) {
    const stems = DOMAIN_KEYWORDS[domain];
    scores.set(
      domain,
      DOMAIN_FIELD_WEIGHTS.theme * hits(probe.theme, stems) +
        DOMAIN_FIELD_WEIGHTS.question * hits(probe.question, stems) +
        DOMAIN_FIELD_WEIGHTS.answer * hits(probe.answer, stems) +
        DOMAIN_FIELD_WEIGHTS.modality * hits(probe.modality, stems),
    );
  }
  if (NON_TEXT_MODALITIES.has(probe.modality.toLowerCase()))
    scores.set('evidence', scores.get('evidence')! + 1);
  if (probe.level <= 1) scores.set('context', scores.get('context')! + 1);
  if (probe.level >= 3) scores.set('implications', scores.get('implications')! + 1);
  let best: ProbeDomain = 'context';
  let bestScore = 0;
  for (const domain of DOMAIN_PRECEDENCE) {
    const score = scores.get(domain)!;
    if (score > bestScore) {
      best = domain;
      bestScore = score;
    }
  }
  return best;
}

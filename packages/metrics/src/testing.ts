import type { AudienceWeight, Probe, ProbeScore } from '@xsb/core';

/** A valid probe for tests; fields not given get neutral values. */
export function makeProbe(probeId: string, overrides: Partial<Probe> = {}): Probe {
  return {
    probe_id: probeId,
    source_case_id: 'case_test',
    scene: 'test',
    question: `Question ${probeId}?`,
    answer: `Answer ${probeId}.`,
    evidence: [{ locator: 'Section 1', text: `Evidence ${probeId}.` }],
    level: 2,
    modality: 'text',
    theme: 'general',
    metadata: {},
    ...overrides,
  };
}

export function makeWeight(probeId: string, audience: string, utilityWeight: number): AudienceWeight {
  return { probe_id: probeId, audience, utility_weight: utilityWeight, reason: 'test', metadata: {} };
}

export function makeScore(probeId: string, covered: boolean): ProbeScore {
  return { probe_id: probeId, covered, answer: covered ? 'yes' : '', cited_evidence: '', metadata: {} };
}

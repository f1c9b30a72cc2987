import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
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

/**
 * Writes a compact metric file `<root>/<systemId>/<audience>/<caseLabel>.json` as stage 7 reads it:
 * 4 included probes, half the utility recovered, unless `values` says otherwise.
 */
export async function writeCompactMetrics(
  root: string,
  systemId: string,
  audience: string,
  caseLabel: string,
  values: Record<string, unknown> = {},
): Promise<void> {
  await mkdir(join(root, systemId, audience), { recursive: true });
  const metrics = {
    audience,
    tau_a: 0.7,
    included_probe_count: 4,
    available_utility: 4,
    recovered_utility: 2,
    coverage: 0.5,
    efficiency_time: 1,
    efficiency_slide: 0.5,
    ...values,
  };
  await writeFile(join(root, systemId, audience, `${caseLabel}.json`), JSON.stringify(metrics));
}

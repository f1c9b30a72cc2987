import { describe, expect, it } from 'vitest';
import { type AudienceWeightInput, audienceWeightSchema } from './audience-weight';
import type { Metrics } from './metrics';
import { type Probe, type ProbeInput, probeSchema } from './probe';
import type { ProbeScoreInput } from './probe-score';

// The `@ts-expect-error` lines are the type test: `pnpm typecheck` fails when a record type accepts an
// unknown key again (the directive would then be unused) or demands a field the schema defaults.
const probe: ProbeInput = {
  probe_id: 'p1',
  source_case_id: 'c1',
  scene: 'lecture',
  question: 'What is measured?',
  answer: 'Coverage.',
  evidence: [{ locator: 'p.1', text: 'Coverage is measured.' }],
  level: 1,
  modality: 'text',
  theme: 'method',
};
const weight: AudienceWeightInput = { probe_id: 'p1', audience: 'learners', utility_weight: 1, reason: '' };
const score: ProbeScoreInput = { probe_id: 'p1', covered: true, answer: 'Coverage.', cited_evidence: '' };

const misspelt: AudienceWeightInput = {
  ...weight,
  // @ts-expect-error a key the record does not have is refused
  wieght: 1,
};
// @ts-expect-error unknown keys are refused inside nested records too
const nested: ProbeInput = { ...probe, evidence: [{ locator: 'p.1', text: 't', page: 3 }] };
// @ts-expect-error a parsed probe always has its (defaulted) metadata
const parsedWithoutMetadata: Probe = probe;

function coverageOf(metrics: Metrics): number | null {
  // @ts-expect-error `m.coverag` does not compile
  metrics.coverag;
  return metrics.coverage;
}

describe('record types: strict in code, loose in files', () => {
  it('a record built without its defaulted metadata parses, and extra keys in files are kept', () => {
    expect(probeSchema.parse(probe).metadata).toEqual({});
    const fromFile = audienceWeightSchema.parse({ ...weight, judge_note: 'kept' });
    expect(fromFile).toMatchObject({ judge_note: 'kept', metadata: {} });
    expect([score.covered, misspelt, nested, parsedWithoutMetadata, coverageOf]).toHaveLength(5);
  });
});

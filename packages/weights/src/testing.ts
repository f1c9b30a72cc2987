import type { CompletionRequest } from '@xsb/llm';
import type { JudgeBatchInput, JudgeBatchOutput, UtilityJudge } from './utility-judge';

/**
 * A judge answering from a function of (probe id, sample index) → raw value (undefined = missing),
 * for tests that need hand-computable weights without a model.
 */
export class ScriptedUtilityJudge implements UtilityJudge {
  readonly calls: Array<{ probeIds: string[]; sampleIndex: number; audience: string }> = [];

  readonly fingerprint = 'scripted';

  constructor(
    private readonly valueFor: (probeId: string, sampleIndex: number, audience: string) => number | undefined,
    readonly id = 'scripted',
  ) {}

  /** Like a model judge, it lists one request per batch and sample (the probe ids it is asked). */
  requestFor(input: JudgeBatchInput): CompletionRequest {
    const ids = input.probes.map((probe) => probe.probe_id).join(' ');
    return { messages: [{ role: 'user', content: `${input.audience.id} ${input.sampleIndex}: ${ids}` }] };
  }

  async judgeBatch(input: JudgeBatchInput): Promise<JudgeBatchOutput> {
    const probeIds = input.probes.map((probe) => probe.probe_id);
    this.calls.push({ probeIds, sampleIndex: input.sampleIndex, audience: input.audience.id });
    const output: JudgeBatchOutput = { judgments: new Map(), failures: new Map() };
    for (const id of probeIds) {
      const value = this.valueFor(id, input.sampleIndex, input.audience.id);
      if (value === undefined) output.failures.set(id, `sample ${input.sampleIndex}: scripted miss`);
      else output.judgments.set(id, { value, rationale: `scripted ${value}` });
    }
    return output;
  }
}

import { type CallUsage, hashCanonicalJson } from '@xsb/core';
import type { CompletionRequest, LlmClient } from '@xsb/llm';
import type { JudgeBatchInput, JudgeBatchOutput, UtilityJudge } from './utility-judge';
import {
  buildUtilityCorrection,
  buildUtilityJudgmentRequest,
  parseUtilityAnswer,
} from './utility-judgment-prompt';

/** One request per batch and sample; ids left out get ONE corrective follow-up, then are failures (never weighted 0). */
export class LlmUtilityJudge implements UtilityJudge {
  readonly id: string;
  // The request for a fixed placeholder batch: it changes exactly when the prompt template does.
  readonly fingerprint = hashCanonicalJson({
    request: buildUtilityJudgmentRequest({ id: '{audience}', description: '{description}' }, [], 0),
    correction: buildUtilityCorrection(['{probe_id}']),
  });

  constructor(private readonly client: LlmClient) {
    this.id = client.judgeId;
  }

  requestFor(input: JudgeBatchInput): CompletionRequest {
    return buildUtilityJudgmentRequest(input.audience, input.probes, input.sampleIndex);
  }

  async judgeBatch(input: JudgeBatchInput, callMade?: (usage: CallUsage) => void): Promise<JudgeBatchOutput> {
    const ids = new Set(input.probes.map((probe) => probe.probe_id));
    const request = this.requestFor(input);
    const first = await this.client.complete(request);
    callMade?.(first.usage);
    const parsed = parseUtilityAnswer(first.text, ids);
    const judgments = parsed.judgments;
    let missing = [...ids].filter((id) => !judgments.has(id));
    if (missing.length > 0) {
      const retry: CompletionRequest = {
        ...request,
        messages: [
          ...request.messages,
          { role: 'assistant', content: first.text },
          { role: 'user', content: buildUtilityCorrection(missing) },
        ],
      };
      const second = await this.client.complete(retry);
      callMade?.(second.usage);
      const corrected = parseUtilityAnswer(second.text, new Set(missing));
      for (const [id, judgment] of corrected.judgments) judgments.set(id, judgment);
      missing = missing.filter((id) => !judgments.has(id));
    }
    const failures = new Map(
      missing.map((id) => [
        id,
        `sample ${input.sampleIndex}: no valid utility for this probe after one corrective retry${
          parsed.unknownIds.length > 0
            ? ` (the answer named unknown ids: ${parsed.unknownIds.slice(0, 5).join(', ')})`
            : ''
        }`,
      ]),
    );
    return { judgments, failures };
  }
}

import { type CallUsage, hashCanonicalJson, InputError } from '@xsb/core';
import type { CompletionRequest, CompletionResult, LlmClient } from '@xsb/llm';
import type { GenerationInput, GenerationOutput, ProbeGenerator } from './generated-probe';
import {
  buildProbeGenerationRequest,
  PROBE_GENERATION_CORRECTION,
  parseProbeGenerationAnswer,
} from './probe-generation-prompt';

/**
 * The LLM generator: one request per chunk and sample; an answer without a probe list gets one
 * corrective follow-up in the same conversation, then the generation fails (and with it the case).
 */
export class LlmProbeGenerator implements ProbeGenerator {
  readonly id: string;
  // The request for a fixed placeholder chunk: it changes exactly when the prompt template does.
  readonly fingerprint = hashCanonicalJson({
    request: buildProbeGenerationRequest({
      caseId: '{case}',
      scene: '{scene}',
      title: '{title}',
      chunkText: '{chunk}',
      chunkBody: '{chunk}',
      chunkStart: 0,
      chunkIndex: 0,
      chunkCount: 1,
      generationIndex: 0,
      k: 1,
      pages: [],
      furniture: [],
    }),
    correction: PROBE_GENERATION_CORRECTION,
  });

  constructor(private readonly client: LlmClient) {
    this.id = client.judgeId;
  }

  requestFor(input: GenerationInput): CompletionRequest {
    return buildProbeGenerationRequest(input);
  }

  async generate(input: GenerationInput, callMade?: (usage: CallUsage) => void): Promise<GenerationOutput> {
    const request = this.requestFor(input);
    const exchanges: GenerationOutput['exchanges'] = [];
    const first = await this.client.complete(request);
    callMade?.(first.usage);
    exchanges.push({ request: describeRequest(request), response: rawResponse(first) });
    let parsed = parseProbeGenerationAnswer(first.text);
    if (!parsed) {
      const retry: CompletionRequest = {
        ...request,
        messages: [
          ...request.messages,
          { role: 'assistant', content: first.text },
          { role: 'user', content: PROBE_GENERATION_CORRECTION },
        ],
      };
      const second = await this.client.complete(retry);
      callMade?.(second.usage);
      exchanges.push({ request: describeRequest(retry), response: rawResponse(second) });
      parsed = parseProbeGenerationAnswer(second.text);
    }
    if (!parsed) {
      throw new InputError(
        `chunk ${input.chunkIndex} generation ${input.generationIndex}: the judge answered twice without a JSON list of probes`,
        { code: 'structured_answer', details: { exchanges } },
      );
    }
    return { probes: parsed.probes, malformed: parsed.malformed, exchanges };
  }
}

/** The request as stored under raw/: binary parts would not serialise, and generation sends none. */
function describeRequest(request: CompletionRequest): unknown {
  return JSON.parse(JSON.stringify(request));
}

/** The answer as stored under raw/: text and model only, since latency and cache hits vary run to run. */
function rawResponse(result: CompletionResult): unknown {
  return { model: result.model, text: result.text };
}

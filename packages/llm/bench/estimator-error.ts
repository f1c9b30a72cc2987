// The token estimator against what the fake server bills, per case and provider (no latency).
import { createLlmClient } from '../src/create-llm-client';
import { estimateTokens } from '../src/estimate-request-tokens';
import { ESTIMATOR_CASES } from './estimator-cases';
import { envFor, serveInChild } from './fake-server-process';

export async function estimatorError(): Promise<string[]> {
  const server = await serveInChild(0);
  const lines: string[] = [];
  for (const spec of ['anthropic:claude-bench', 'openai:gpt-bench']) {
    const client = createLlmClient(spec, { env: envFor(server.url) });
    for (const { name, request } of ESTIMATOR_CASES) {
      const { usage } = await client.complete(request);
      const billed = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
      const estimate = estimateTokens(request).inputTokens;
      lines.push(
        `${spec.padEnd(24)} estimator, ${name}: estimate ${estimate}, fake server billed ${billed}, error ${(((estimate - billed) / billed) * 100).toFixed(2)} %`,
      );
    }
  }
  await server.stop();
  return lines;
}

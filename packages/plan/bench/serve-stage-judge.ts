// The fake provider for the scale runs, in its own process (as a real provider would be, so its CPU
// and memory are not the client's): prints its URL on the first stdout line, answers every xsb stage
// prompt with the simulated judge, each answer after base ± jitter ms (seeded), keeps no requests.
// argv: JSON {latencyMs, jitterMs, probesPerCase?: Record<string, number>, batchProcessingMs?}.
import { createSeededRandom } from '@xsb/core';
import { startFakeLlmServer } from '@xsb/llm/testing';
import { stageAnswerHandler } from '../src/stage-answer-handler';

const options = JSON.parse(process.argv[2] ?? '{}') as {
  latencyMs?: number;
  jitterMs?: number;
  probesPerCase?: Record<string, number>;
  batchProcessingMs?: number;
};
const latency = options.latencyMs ?? 0;
const jitter = options.jitterMs ?? 0;
const random = createSeededRandom(20261201);
const answer = stageAnswerHandler({
  probesPerChunk: (caseId) => options.probesPerCase?.[caseId] ?? 20,
});
const server = await startFakeLlmServer({
  keepRequests: false,
  handler: async (request) => {
    const reply = await answer(request);
    // Batch entries are answered when their batch ends: no per-call latency there.
    const wait = request.batchId ? 0 : Math.max(0, latency - jitter + random() * 2 * jitter);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return reply;
  },
  ...(options.batchProcessingMs !== undefined
    ? { batchPlan: () => ({ processingMs: options.batchProcessingMs, pollsBeforeEnd: 0 }) }
    : {}),
});
process.stdout.write(`${server.url}\n`);
process.stdin.on('data', () => {
  process.stdout.write(
    `${JSON.stringify({ requests: server.requestCount, batches: server.batches.length, rss: process.memoryUsage().rss })}\n`,
  );
});
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});

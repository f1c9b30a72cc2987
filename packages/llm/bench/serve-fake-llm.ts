// Runs the fake server in its own process for the bench, as a real provider would be: prints its
// URL on the first stdout line and serves until the parent kills it.
// argv: latency ms, then optional JSON {rateLimits?, batchProcessingMs?, answerBytes?}.

import { startFakeLlmServer } from '../src/fake-llm-server';
import type { FakeRateLimits } from '../src/fake-rate-limits';

const latencyMs = Number(process.argv[2] ?? 0);
const extra = JSON.parse(process.argv[3] ?? '{}') as {
  rateLimits?: FakeRateLimits;
  batchProcessingMs?: number;
  answerBytes?: number;
};
const text = extra.answerBytes ? 'x'.repeat(extra.answerBytes) : 'answer';
const server = await startFakeLlmServer({
  latencyMs,
  handler: () => ({ text }),
  ...(extra.rateLimits ? { rateLimits: extra.rateLimits } : {}),
  ...(extra.batchProcessingMs !== undefined
    ? {
        batchPlan: () => ({
          processingMs: extra.batchProcessingMs,
          pollsBeforeEnd: Number.POSITIVE_INFINITY,
        }),
      }
    : {}),
});
process.stdout.write(`${server.url}\n`);
// The parent asks for the enforcer's counts by sending a line on stdin.
process.stdin.on('data', () => {
  process.stdout.write(`${JSON.stringify(server.rateLimitStats)}\n`);
});
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});

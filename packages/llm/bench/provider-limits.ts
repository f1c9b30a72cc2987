// Throughput against a provider's limits, through the real SDKs against the fake server in its own
// process. Goodput = what the server let through / the most its limit admits in the same time:
// its bucket (burst) plus the refill over the run's wall time.

import type { ProviderLimits } from '@xsb/core';
import { createLlmClient } from '../src/create-llm-client';
import { envFor, serveInChild } from './fake-server-process';

const BURST_MS = 1_000;

interface LimitCase {
  name: string;
  spec: string;
  requests: number;
  /** The server's limits; the client is configured with them or not. */
  server: { requestsPerMinute?: number; tokensPerMinute?: number };
  clientKnowsLimits: boolean;
  maxTokens: number;
  answerBytes: number;
  promptWords: number;
}

const CASES: LimitCase[] = [
  ...[true, false].map((clientKnowsLimits) => ({
    name: 'RPM 3,000',
    spec: 'openai:gpt-bench',
    requests: 500,
    server: { requestsPerMinute: 3_000 },
    clientKnowsLimits,
    maxTokens: 64,
    answerBytes: 40,
    promptWords: 20,
  })),
  ...[true, false].map((clientKnowsLimits) => ({
    name: 'TPM 300,000',
    spec: 'anthropic:claude-bench',
    requests: 200,
    server: { tokensPerMinute: 300_000 },
    clientKnowsLimits,
    // Each call reserves ~ 800 + 600 tokens and spends ~ 800 + 100.
    maxTokens: 600,
    answerBytes: 400,
    promptWords: 640,
  })),
];

async function goodput(c: LimitCase): Promise<string> {
  const server = await serveInChild(100, {
    rateLimits: { ...c.server, burstMs: BURST_MS },
    answerBytes: c.answerBytes,
  });
  const limits: ProviderLimits = {
    maxConcurrency: 32,
    maxAttempts: 12,
    maxTotalWaitMs: 600_000,
    ...(c.clientKnowsLimits ? c.server : {}),
  };
  const client = createLlmClient(c.spec, { env: envFor(server.url), limits });
  const prompt = 'word '.repeat(c.promptWords);
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: c.requests }, (_, i) =>
      client
        .complete({ messages: [{ role: 'user', content: `${i} ${prompt}` }], maxTokens: c.maxTokens })
        .catch(() => {
          failed += 1;
        }),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  const stats = await server.stats();
  await server.stop();
  const perMinute = c.server.requestsPerMinute ?? (c.server.tokensPerMinute as number);
  const admitted = perMinute * (BURST_MS / 60_000) + (perMinute / 60) * seconds;
  const used = c.server.requestsPerMinute ? stats.accepted : stats.acceptedTokens;
  const unit = c.server.requestsPerMinute ? 'requests' : 'tokens';
  return `${c.spec.padEnd(24)} ${c.name} enforced (bucket ${BURST_MS} ms), client ${c.clientKnowsLimits ? 'configured with it' : 'not told (429 + retry-after + AIMD only)'}: ${c.requests} calls in ${seconds.toFixed(1)} s, ${used} ${unit} let through of ${Math.round(admitted)} admissible → goodput ${(used / admitted).toFixed(3)}; 429s ${stats.rateLimited}, failed calls ${failed}`;
}

export async function goodputUnderLimits(): Promise<string[]> {
  const lines: string[] = [];
  for (const c of CASES) lines.push(await goodput(c));
  return lines;
}

/** 64 calls in flight against 800 ms latency: achieved / ideal, ideal = 64 / 0.8 s = 80 req/s. */
export async function concurrency64(spec: string): Promise<string> {
  const latencyMs = 800;
  const concurrency = 64;
  const requests = 640;
  const server = await serveInChild(latencyMs);
  const client = createLlmClient(spec, { env: envFor(server.url), limits: { maxConcurrency: concurrency } });
  const ask = (i: number) => client.complete({ messages: [{ role: 'user', content: `question ${i}` }] });
  await Promise.all(Array.from({ length: concurrency }, (_, i) => ask(-1 - i)));
  const started = performance.now();
  await Promise.all(Array.from({ length: requests }, (_, i) => ask(i)));
  const seconds = (performance.now() - started) / 1000;
  await server.stop();
  const ideal = concurrency / (latencyMs / 1000);
  return `${spec.padEnd(24)} ${requests} requests, concurrency ${concurrency}, ${latencyMs} ms latency: ${(requests / seconds).toFixed(1)} req/s, achieved/ideal (ideal ${ideal} req/s) ${(requests / seconds / ideal).toFixed(3)}`;
}

// Throughput and overhead of the xsb client against the loopback fake server, through the real SDKs.
// The server runs in its own process (as a real provider would), so its CPU is not charged to the client.
// 1) 400 requests at concurrency 16 with 100 ms server latency: achieved / ideal (16 / 0.1 s), 3 runs.
// 2) Per-call overhead at 0 latency: the xsb client minus the bare SDK call on the same transport
//    (xsb's node:http fetch), sequential, in µs of wall time and of process CPU time, interleaved in
//    rounds so machine load drifts hit both alike. The bare SDK on Node's built-in fetch is shown too.
// 3) A disk-cache hit, in µs.
// 4) Goodput against a fake server enforcing RPM and TPM limits (client configured with them, and not).
// 5) 64-way concurrency against 800 ms latency: achieved / ideal (80 req/s).
// 6) A batch run: submissions, polls, wall time. 7) The token estimator's error on the fake server.
// 8) What sending one ~43 MB batch body adds to memory, the SDK's way and xsb's (batch-body-memory.ts).
// Peak RSS at the end. Name parts to run only those: throughput overhead limits concurrency64 batch
// estimator body.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { createLlmClient } from '../src/create-llm-client';
import { httpFetch } from '../src/http-fetch';
import { batchBodyMemory } from './batch-body-memory';
import { batchRun } from './batch-run';
import { estimatorError } from './estimator-error';
import { envFor, serveInChild } from './fake-server-process';
import { concurrency64, goodputUnderLimits } from './provider-limits';

const REQUESTS = 400;
const CONCURRENCY = 16;
const LATENCY_MS = 100;
const THROUGHPUT_RUNS = 3;
const ROUNDS = 7;
const CALLS_PER_ROUND = 200;
const SPECS = ['openai:gpt-bench', 'anthropic:claude-bench'] as const;

const question = (i: number) => ({
  system: 'bench',
  messages: [{ role: 'user' as const, content: `question ${i}` }],
});
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function throughput(spec: string): Promise<number[]> {
  const server = await serveInChild(LATENCY_MS);
  const client = createLlmClient(spec, { env: envFor(server.url), limits: { maxConcurrency: CONCURRENCY } });
  await Promise.all(Array.from({ length: CONCURRENCY * 2 }, (_, i) => client.complete(question(-1 - i))));
  const ratios: number[] = [];
  for (let run = 0; run < THROUGHPUT_RUNS; run += 1) {
    const started = performance.now();
    await Promise.all(
      Array.from({ length: REQUESTS }, (_, i) => client.complete(question(run * REQUESTS + i))),
    );
    const seconds = (performance.now() - started) / 1000;
    ratios.push(REQUESTS / seconds / (CONCURRENCY / (LATENCY_MS / 1000)));
  }
  await server.stop();
  return ratios;
}

interface Timing {
  wallUs: number;
  cpuUs: number;
}

async function timeCalls(from: number, call: (i: number) => Promise<unknown>): Promise<Timing> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < CALLS_PER_ROUND; i += 1) await call(from + i);
  const used = process.cpuUsage(cpu);
  return {
    wallUs: ((performance.now() - started) * 1000) / CALLS_PER_ROUND,
    cpuUs: (used.user + used.system) / CALLS_PER_ROUND,
  };
}

async function overhead(spec: (typeof SPECS)[number]): Promise<string> {
  const server = await serveInChild(0);
  const env = envFor(server.url);
  const client = createLlmClient(spec, { env });
  const bareCall = (fetchImpl: typeof fetch | undefined): ((i: number) => Promise<unknown>) => {
    const transport = fetchImpl ? { fetch: fetchImpl } : {};
    if (spec.startsWith('openai')) {
      const sdk = new OpenAI({
        apiKey: env.OPENAI_API_KEY,
        baseURL: env.OPENAI_BASE_URL,
        maxRetries: 0,
        ...transport,
      });
      return (i) =>
        sdk.chat.completions.create({
          model: 'gpt-bench',
          messages: [
            { role: 'system', content: 'bench' },
            { role: 'user', content: `question ${i}` },
          ],
        });
    }
    const sdk = new Anthropic({
      apiKey: env.ANTHROPIC_API_KEY,
      baseURL: env.ANTHROPIC_BASE_URL,
      maxRetries: 0,
      ...transport,
    });
    return (i) =>
      sdk.messages.create({
        model: 'claude-bench',
        max_tokens: 4096,
        system: 'bench',
        messages: [{ role: 'user', content: `question ${i}` }],
      });
  };
  const bare = bareCall(httpFetch);
  const builtin = bareCall(undefined);
  const cacheDir = await mkdtemp(join(tmpdir(), 'xsb-llm-bench-'));
  const cached = createLlmClient(spec, { env, cacheDir });
  for (let i = 0; i < CALLS_PER_ROUND; i += 1) await cached.complete(question(i));
  for (const warmUp of [1e6, 2e6]) {
    await timeCalls(warmUp, (i) => client.complete(question(i)));
    await timeCalls(warmUp, bare);
    await timeCalls(warmUp, builtin);
  }
  const xsb: Timing[] = [];
  const sdk: Timing[] = [];
  const sdkBuiltin: Timing[] = [];
  const hits: Timing[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    xsb.push(await timeCalls(round * CALLS_PER_ROUND, (i) => client.complete(question(i))));
    sdk.push(await timeCalls(round * CALLS_PER_ROUND, bare));
    sdkBuiltin.push(await timeCalls(round * CALLS_PER_ROUND, builtin));
    hits.push(await timeCalls(0, (i) => cached.complete(question(i))));
  }
  await rm(cacheDir, { recursive: true, force: true });
  await server.stop();
  const m = (timings: Timing[], key: keyof Timing) => median(timings.map((t) => t[key]));
  return `${spec.padEnd(24)} 0 ms latency, sequential (median of ${ROUNDS} rounds of ${CALLS_PER_ROUND}): xsb ${m(xsb, 'wallUs').toFixed(0)} µs wall / ${m(xsb, 'cpuUs').toFixed(0)} µs CPU per call, bare SDK ${m(sdk, 'wallUs').toFixed(0)} / ${m(sdk, 'cpuUs').toFixed(0)} (on built-in fetch ${m(sdkBuiltin, 'wallUs').toFixed(0)} / ${m(sdkBuiltin, 'cpuUs').toFixed(0)}), xsb overhead ${(m(xsb, 'wallUs') - m(sdk, 'wallUs')).toFixed(0)} µs wall / ${(m(xsb, 'cpuUs') - m(sdk, 'cpuUs')).toFixed(0)} µs CPU; disk-cache hit ${m(hits, 'wallUs').toFixed(0)} µs`;
}

/** Parts to run: every one, or those named on the command line (`pnpm bench -- limits batch`). */
const wanted = new Set(process.argv.slice(2).filter((arg) => !arg.startsWith('-')));
const run = (part: string) => wanted.size === 0 || wanted.has(part);

if (run('throughput'))
  for (const spec of SPECS) {
    const ratios = await throughput(spec);
    console.log(
      `${spec.padEnd(24)} ${REQUESTS} requests, concurrency ${CONCURRENCY}, ${LATENCY_MS} ms latency: achieved/ideal (ideal ${CONCURRENCY / (LATENCY_MS / 1000)} req/s) per run ${ratios.map((r) => r.toFixed(3)).join(', ')}; median ${median(ratios).toFixed(3)}, best ${Math.max(...ratios).toFixed(3)}`,
    );
  }
if (run('overhead')) for (const spec of SPECS) console.log(await overhead(spec));
if (run('limits')) for (const line of await goodputUnderLimits()) console.log(line);
if (run('concurrency64')) for (const spec of SPECS) console.log(await concurrency64(spec));
if (run('batch')) for (const spec of SPECS) console.log(await batchRun(spec));
if (run('body')) for (const line of await batchBodyMemory()) console.log(line);
if (run('estimator')) for (const line of await estimatorError()) console.log(line);
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(1)} MB`);

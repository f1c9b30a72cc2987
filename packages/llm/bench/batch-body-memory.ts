// What sending one batch body adds to the client's memory, each way in a fresh process against the
// fake server in another: the SDK's own `messages.batches.create` (the body as one JS string, as xsb
// sent it before; its entries as objects), xsb's Anthropic create (a Blob built an entry at a time, streamed by httpFetch)
// and xsb's OpenAI upload (the JSONL as a Blob in the multipart form). The body: 816 requests sharing
// one deck text of ~50 KB with non-Latin-1 characters (one tier of 16 decks of a PresentBench-size
// rubric run), ~43 MB. argv[2] names the way when run as the child.
import { spawn } from 'node:child_process';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { AnthropicBatchBackend } from '../src/anthropic-adapter';
import type { CompletionRequest } from '../src/completion-types';
import { httpFetch } from '../src/http-fetch';
import { OpenAiBatchBackend } from '../src/openai-adapter';
import { serveInChild } from './fake-server-process';

const WAYS = ['sdk-create', 'xsb-anthropic-create', 'xsb-openai-upload'] as const;
type Way = (typeof WAYS)[number];

const deck = 'Slide text, Übersicht — résumé. '.repeat(1_600);
const requests: CompletionRequest[] = Array.from({ length: 816 }, (_, i) => ({
  system: deck,
  messages: [
    { role: 'user', content: `Checklist item ${i}: does the deck state the growth? ${'·'.repeat(400)}` },
  ],
  maxTokens: 512,
}));

interface Measured {
  way: Way;
  bodyMb: number;
  ms: number;
  rssMb: number;
  arrayBuffersMb: number;
}

async function measure(way: Way, url: string): Promise<Measured> {
  const anthropicClient = new Anthropic({
    apiKey: 'bench-key',
    baseURL: url,
    fetch: httpFetch,
    maxRetries: 0,
  });
  const anthropic = new AnthropicBatchBackend(async () => anthropicClient);
  const openaiClient = new OpenAI({
    apiKey: 'bench-key',
    baseURL: `${url}/v1`,
    fetch: httpFetch,
    maxRetries: 0,
  });
  const openai = new OpenAiBatchBackend(async () => openaiClient, false);
  const backend = way === 'xsb-openai-upload' ? openai : anthropic;
  // Rendered before the baseline: the batching client holds its entries anyway.
  const entries = requests.map((request, i) => backend.entryFor(`xsb-${i}`, request, 'claude-bench'));
  const bodyMb = entries.reduce((sum, entry) => sum + entry.bytes, 0) / 1e6;
  const bodies = way === 'sdk-create' ? entries.map((entry) => JSON.parse(entry.json.toString())) : [];
  (globalThis as { gc?: () => void }).gc?.();
  const base = process.memoryUsage();
  let peak = { rss: base.rss, arrayBuffers: base.arrayBuffers };
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    peak = { rss: Math.max(peak.rss, now.rss), arrayBuffers: Math.max(peak.arrayBuffers, now.arrayBuffers) };
  }, 5);
  const started = performance.now();
  if (way === 'sdk-create')
    await anthropicClient.messages.batches.create({
      requests: bodies as unknown as Anthropic.Messages.BatchCreateParams['requests'],
    });
  else if (way === 'xsb-anthropic-create') await anthropic.create(entries);
  else await openai.upload(entries, 'bench');
  const ms = performance.now() - started;
  clearInterval(sampler);
  const mb = (bytes: number) => Math.round(bytes / 1048576);
  return {
    way,
    bodyMb: Math.round(bodyMb),
    ms: Math.round(ms),
    rssMb: mb(peak.rss - base.rss),
    arrayBuffersMb: mb(peak.arrayBuffers - base.arrayBuffers),
  };
}

function inChild(way: Way, url: string): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', 'bench/batch-body-memory.ts', way, url],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as Measured) : reject(new Error(`${way}: exit ${code}`)),
    );
  });
}

/** One line per way: the body's size and what sending it added to RSS and to array buffers. */
export async function batchBodyMemory(): Promise<string[]> {
  const server = await serveInChild(0);
  try {
    const lines: string[] = [];
    for (const way of WAYS) {
      const m = await inChild(way, server.url);
      lines.push(
        `batch body ${m.way.padEnd(22)} ${m.bodyMb} MB body: RSS +${m.rssMb} MB, array buffers +${m.arrayBuffersMb} MB at the peak, ${m.ms} ms`,
      );
    }
    return lines;
  } finally {
    await server.stop();
  }
}

const way = process.argv[2] as Way | undefined;
if (way && (WAYS as readonly string[]).includes(way))
  process.stdout.write(JSON.stringify(await measure(way, process.argv[3] ?? '')));

import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ANTHROPIC_BATCH_LIMITS } from './anthropic-adapter';
import {
  type FakeBatch,
  FakeBatchApi,
  type FakeBatchFault,
  type FakeBatchLimits,
  type FakeBatchPlanner,
  type FakeBatchRoute,
  type FakeEntryAnswer,
  type FakeFile,
} from './fake-batch-api';
import {
  approximateTokens,
  BINARY_BLOCK_TOKENS,
  type FakeProvider,
  promptTokensOf,
  sendError,
  sendJson,
  textOf,
} from './fake-http';
import {
  emptyRateStats,
  FakeRateEnforcer,
  type FakeRateLimits,
  type FakeRateStats,
  type RateTicket,
} from './fake-rate-limits';
import { OPENAI_BATCH_LIMITS } from './openai-adapter';

export { approximateTokens, type FakeProvider } from './fake-http';

/** What the handler sees of one request. */
export interface FakeLlmRequest {
  provider: FakeProvider;
  model: string;
  /** The system prompt (Anthropic `system`, OpenAI system/developer messages), joined by newlines. */
  system: string;
  /** Every user and assistant text part, in order, joined by newlines. */
  text: string;
  /** The parsed JSON body as the SDK sent it. */
  body: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  /** Set for an entry of a batch: the batch it came in and its custom_id. */
  batchId?: string;
  customId?: string;
}

/**
 * A fault instead of an answer:
 * - `status`: an error response in the provider's own error format (e.g. 429, 500, 529, 401, 400),
 *   with optional `retry-after` (seconds or HTTP date, as given) and `retry-after-ms` headers;
 * - `reset`: headers and half of a body, then the connection is destroyed;
 * - `stall`: nothing is sent for `ms` (set it beyond the client's timeout), then a normal answer
 *   with `text` if the client is still listening;
 * - `malformed`: 200 with a body that is not JSON; `empty`: 200 with no body.
 */
export type FakeFault =
  | {
      kind: 'status';
      status: number;
      retryAfter?: string;
      retryAfterMs?: number;
      message?: string;
      errorCode?: string;
      /** Sent as `x-should-retry` (Anthropic sends `true` with 529 by default). */
      shouldRetry?: boolean;
    }
  | { kind: 'reset' }
  | { kind: 'stall'; ms: number; text?: string }
  | { kind: 'malformed' }
  | { kind: 'empty' };

export type FakeLlmReply = { text: string; model?: string } | { fault: FakeFault };

export type FakeLlmHandler = (request: FakeLlmRequest) => FakeLlmReply | Promise<FakeLlmReply>;

export interface FakeLlmServerOptions {
  handler?: FakeLlmHandler;
  /** Delay before each answer (and before each fault), in ms. */
  latencyMs?: number;
  /** Shortest cacheable Anthropic prefix, in approximate tokens (Anthropic: 1,024 for most models). */
  anthropicMinCacheTokens?: number;
  /** Shortest OpenAI prompt that gets cached, in approximate tokens (OpenAI: 1,024). */
  openAiMinCacheTokens?: number;
  /** RPM, TPM and in-flight limits on online calls, answered with 429 + retry-after (529/503). */
  rateLimits?: FakeRateLimits;
  /** How each new batch behaves (default: it ends at the second status request, all answered). */
  batchPlan?: FakeBatchPlanner;
  /** Time each batch upload or create call takes to answer, in ms (default 0). */
  batchSubmitLatencyMs?: number;
  /** Per-batch limits (defaults: the providers' own, 100,000 / 256 MB and 50,000 / 200 MB). */
  batchLimits?: { anthropic?: FakeBatchLimits; openai?: FakeBatchLimits };
  /**
   * Keep every request in `requests`, and the bodies of ended batches (default true). A scale run of
   * 100,000 calls with 80 KB prompts would hold gigabytes: pass false and read `requestCount` instead.
   */
  keepRequests?: boolean;
}

export interface FakeLlmServer {
  /** `http://127.0.0.1:<port>`: use it as ANTHROPIC_BASE_URL, and `url + '/v1'` as OPENAI_BASE_URL. */
  readonly url: string;
  /** Every request that reached a route, in arrival order. */
  readonly requests: FakeLlmRequest[];
  /** HTTP requests received, whatever their route or outcome. */
  readonly requestCount: number;
  /** Every batch created, in order (both providers). */
  readonly batches: readonly FakeBatch[];
  /** The most batch upload and create calls that were being answered at once. */
  readonly maxConcurrentBatchSubmissions: number;
  /** Files uploaded (OpenAI batch input) and written (batch output and error files). */
  readonly files: readonly FakeFile[];
  /** What the RPM/TPM/in-flight enforcer let through and refused (zeros without `rateLimits`). */
  readonly rateLimitStats: FakeRateStats;
  /**
   * Token-count requests answered (Anthropic `POST /v1/messages/count_tokens`, OpenAI `POST
   * /v1/responses/input_tokens`); they are not completions and never appear in `requests`.
   */
  readonly tokenCountRequests: number;
  setHandler(handler: FakeLlmHandler): void;
  setBatchPlan(planner: FakeBatchPlanner): void;
  /** The next `times` calls of a batch route fail with `fault` (`lost`: done, but answered 500). */
  queueBatchFault(route: FakeBatchRoute, fault: FakeBatchFault, times?: number): void;
  /** Drops every queued batch fault not yet used. */
  clearBatchFaults(): void;
  /** How many queued batch faults are not yet used (a test checks its faults were met). */
  batchFaultsLeft(): number;
  /** Ends a held batch (every one when no id is given) at its next status request. */
  releaseBatches(id?: string): void;
  close(): Promise<void>;
}

/** OpenAI reports cached tokens in steps of 128. */
const OPENAI_CACHE_STEP = 128;
/** How many earlier OpenAI prompts the simulated cache remembers. */
const OPENAI_CACHE_ENTRIES = 256;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Starts the fake provider on 127.0.0.1 with an ephemeral port. */
export async function startFakeLlmServer(options: FakeLlmServerOptions = {}): Promise<FakeLlmServer> {
  let handler: FakeLlmHandler = options.handler ?? (() => ({ text: 'ok' }));
  const latencyMs = options.latencyMs ?? 0;
  const anthropicMin = options.anthropicMinCacheTokens ?? 1024;
  const openAiMin = options.openAiMinCacheTokens ?? 1024;
  const requests: FakeLlmRequest[] = [];
  let requestCount = 0;
  let tokenCountRequests = 0;
  const keepRequests = options.keepRequests ?? true;
  const anthropicPrefixes = new Set<string>();
  const openAiPrompts: string[] = [];
  const sockets = new Set<Socket>();
  const enforcer = options.rateLimits ? new FakeRateEnforcer(options.rateLimits) : undefined;
  const noRateStats = emptyRateStats();
  let url = '';
  const batchApi = new FakeBatchApi(
    {
      answer: answerEntry,
      url: () => url,
      limits: {
        anthropic: options.batchLimits?.anthropic ?? { ...ANTHROPIC_BATCH_LIMITS },
        openai: options.batchLimits?.openai ?? { ...OPENAI_BATCH_LIMITS },
      },
      keepBodies: options.keepRequests ?? true,
      ...(options.batchSubmitLatencyMs !== undefined
        ? { submitLatencyMs: options.batchSubmitLatencyMs }
        : {}),
    },
    options.batchPlan,
  );

  const server = createServer((req, res) => {
    requestCount += 1;
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `fake server: ${(error as Error).message}` } }));
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const path = (req.url ?? '').split('?')[0] ?? '';
    const provider: FakeProvider | undefined =
      req.method === 'POST' && path === '/v1/messages'
        ? 'anthropic'
        : req.method === 'POST' && path === '/v1/chat/completions'
          ? 'openai'
          : undefined;
    if (!provider) {
      if (req.method === 'POST' && countTokens(res, path, raw)) return;
      if (await batchApi.route(req, res, path, raw)) return;
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `fake server: no route ${req.method} ${path}` } }));
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      sendError(res, provider, { status: 400, message: 'request body is not JSON' });
      return;
    }
    let ticket: RateTicket | undefined;
    if (enforcer) {
      const admitted = enforcer.admit(provider, promptTokensOf(provider, body), answerBudgetOf(body));
      if (typeof admitted !== 'function') {
        sendError(res, provider, admitted);
        return;
      }
      ticket = admitted;
      res.on('close', () => ticket?.());
    }
    const request = describe(provider, body, req.headers);
    if (keepRequests) requests.push(request);
    const reply = await handler(request);
    if (latencyMs > 0) await sleep(latencyMs);
    let text: string;
    let model = request.model;
    if ('fault' in reply) {
      if (reply.fault.kind !== 'stall') {
        await sendFault(res, provider, reply.fault);
        return;
      }
      await sleep(reply.fault.ms);
      if (res.socket?.destroyed || res.destroyed) return;
      text = reply.fault.text ?? 'late answer';
    } else {
      text = reply.text;
      model = reply.model ?? model;
    }
    const payload = answerPayload(provider, body, model, text);
    ticket?.(outputTokensOf(payload));
    const json = JSON.stringify(payload);
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(json),
      'request-id': `req_${randomBytes(8).toString('hex')}`,
    });
    res.end(json);
  }

  /**
   * The providers' token-count endpoints, with the same approximation the answers bill: Anthropic
   * `count_tokens` (system + messages, as `input_tokens`), OpenAI Responses `input_tokens`
   * (instructions + input items). Returns false for any other route.
   */
  function countTokens(res: ServerResponse, path: string, raw: Buffer): boolean {
    const provider =
      path === '/v1/messages/count_tokens'
        ? 'anthropic'
        : path === '/v1/responses/input_tokens'
          ? 'openai'
          : undefined;
    if (!provider) return false;
    tokenCountRequests += 1;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      sendError(res, provider, { status: 400, message: 'request body is not JSON' });
      return true;
    }
    if (typeof body.model !== 'string' || body.model === '') {
      sendError(res, provider, { status: 400, message: 'model: field required' });
      return true;
    }
    if (provider === 'anthropic') {
      sendJson(res, 200, { input_tokens: promptTokensOf('anthropic', body) });
      return true;
    }
    const items = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input;
    let tokens = typeof body.instructions === 'string' ? approximateTokens(body.instructions) : 0;
    for (const item of Array.isArray(items) ? (items as Array<Record<string, unknown>>) : [])
      tokens += textOf(item.content).tokens;
    sendJson(res, 200, { object: 'response.input_tokens', input_tokens: tokens });
    return true;
  }

  function answerPayload(provider: FakeProvider, body: Record<string, unknown>, model: string, text: string) {
    return provider === 'anthropic' ? anthropicAnswer(body, model, text) : openAiAnswer(body, model, text);
  }

  /** A batch entry through the same handler and answer rendering as an online call. */
  async function answerEntry(
    provider: FakeProvider,
    body: Record<string, unknown>,
    meta: { batchId: string; customId: string },
  ): Promise<FakeEntryAnswer> {
    const request = { ...describe(provider, body, {}), ...meta };
    if (keepRequests) requests.push(request);
    const reply = await handler(request);
    if ('fault' in reply) {
      const fault = reply.fault;
      if (fault.kind === 'status')
        return { status: fault.status, message: fault.message ?? `fake ${fault.status} error` };
      if (fault.kind !== 'stall') return { status: 500, message: `fake ${fault.kind} fault` };
      return { ok: answerPayload(provider, body, request.model, fault.text ?? 'late answer') };
    }
    return { ok: answerPayload(provider, body, reply.model ?? request.model, reply.text) };
  }

  function describe(
    provider: FakeProvider,
    body: Record<string, unknown>,
    headers: IncomingMessage['headers'],
  ): FakeLlmRequest {
    const messages = Array.isArray(body.messages) ? (body.messages as Array<Record<string, unknown>>) : [];
    const systemParts: string[] = [];
    const textParts: string[] = [];
    if (provider === 'anthropic' && body.system !== undefined) systemParts.push(textOf(body.system).text);
    for (const message of messages) {
      const { text } = textOf(message.content);
      if (message.role === 'system' || message.role === 'developer') systemParts.push(text);
      else textParts.push(text);
    }
    return {
      provider,
      model: typeof body.model === 'string' ? body.model : '',
      system: systemParts.join('\n'),
      text: textParts.join('\n'),
      body,
      headers: { ...headers },
    };
  }

  /**
   * Anthropic's cache: the prompt is the system blocks then every message block, in order; each
   * block with `cache_control` ends a prefix. The longest prefix seen before (same model) is read
   * from the cache; every longer marked prefix is written. Prefixes shorter than the minimum are
   * never cached, as with the real API.
   */
  function anthropicAnswer(body: Record<string, unknown>, model: string, fullText: string) {
    const { text, cut } = truncateToTokens(fullText, body.max_tokens);
    const stopReason = cut ? 'max_tokens' : 'end_turn';
    const blocks: Array<{ key: string; tokens: number; marked: boolean }> = [];
    const pushBlocks = (role: string, content: unknown) => {
      const list =
        typeof content === 'string'
          ? [{ type: 'text', text: content }]
          : Array.isArray(content)
            ? (content as Array<Record<string, unknown>>)
            : [];
      for (const block of list) {
        const { cache_control: marker, ...rest } = block as Record<string, unknown>;
        const key = JSON.stringify([role, rest]);
        const tokens = typeof rest.text === 'string' ? approximateTokens(rest.text) : BINARY_BLOCK_TOKENS;
        blocks.push({ key, tokens, marked: marker !== undefined && marker !== null });
      }
    };
    pushBlocks('system', body.system);
    for (const message of (body.messages as Array<Record<string, unknown>>) ?? [])
      pushBlocks(String(message.role), message.content);

    const hash = createHash('sha256').update(model);
    let running = 0;
    let total = 0;
    const prefixes: Array<{ digest: string; tokens: number }> = [];
    for (const block of blocks) {
      hash.update(block.key);
      running += block.tokens;
      total += block.tokens;
      if (block.marked) prefixes.push({ digest: hash.copy().digest('hex'), tokens: running });
    }
    let read = 0;
    for (const prefix of prefixes)
      if (anthropicPrefixes.has(prefix.digest)) read = Math.max(read, prefix.tokens);
    let written = 0;
    for (const prefix of prefixes) {
      if (prefix.tokens <= read || prefix.tokens < anthropicMin) continue;
      anthropicPrefixes.add(prefix.digest);
      written = Math.max(written, prefix.tokens);
    }
    const creation = written > read ? written - read : 0;
    return {
      id: `msg_${randomBytes(12).toString('hex')}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text }],
      stop_reason: stopReason,
      stop_sequence: null,
      usage: {
        input_tokens: total - read - creation,
        cache_creation_input_tokens: creation,
        cache_read_input_tokens: read,
        output_tokens: approximateTokens(text),
        service_tier: 'standard',
      },
    };
  }

  /**
   * OpenAI's automatic cache: the prompt is rendered as one string (messages in order, binary parts
   * by their bytes); the longest common prefix with a remembered earlier prompt of the same model,
   * in approximate tokens, rounded down to 128, counts as cached once the prompt reaches the minimum.
   */
  function openAiAnswer(body: Record<string, unknown>, model: string, fullText: string) {
    const { text, cut } = truncateToTokens(fullText, body.max_completion_tokens ?? body.max_tokens);
    let rendered = `${model}\u0000`;
    let promptTokens = 0;
    for (const message of (body.messages as Array<Record<string, unknown>>) ?? []) {
      rendered += `${String(message.role)}\u0000${JSON.stringify(message.content)}\u0000`;
      promptTokens += textOf(message.content).tokens;
    }
    let cached = 0;
    if (promptTokens >= openAiMin) {
      let longest = 0;
      for (const earlier of openAiPrompts) longest = Math.max(longest, commonPrefixLength(earlier, rendered));
      const prefixTokens = approximateTokens(rendered.slice(0, longest));
      cached = Math.min(promptTokens, prefixTokens);
      cached = cached >= openAiMin ? Math.floor(cached / OPENAI_CACHE_STEP) * OPENAI_CACHE_STEP : 0;
      openAiPrompts.push(rendered);
      if (openAiPrompts.length > OPENAI_CACHE_ENTRIES) openAiPrompts.shift();
    }
    const completionTokens = approximateTokens(text);
    return {
      id: `chatcmpl-${randomBytes(12).toString('hex')}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: text, refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: cut ? 'length' : 'stop',
        },
      ],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
        prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
        completion_tokens_details: {
          reasoning_tokens: 0,
          audio_tokens: 0,
          accepted_prediction_tokens: 0,
          rejected_prediction_tokens: 0,
        },
      },
      service_tier: 'default',
      system_fingerprint: 'fp_fake',
    };
  }

  async function sendFault(res: ServerResponse, provider: FakeProvider, fault: FakeFault): Promise<void> {
    switch (fault.kind) {
      case 'status':
        sendError(res, provider, fault);
        return;
      case 'reset': {
        const json = JSON.stringify({
          id: 'partial',
          type: 'message',
          content: [{ type: 'text', text: 'cut off' }],
        });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
        res.write(json.slice(0, Math.floor(json.length / 2)));
        // Let the partial body reach the client before the connection dies.
        await sleep(20);
        res.socket?.destroy();
        return;
      }
      case 'stall':
        return;
      case 'malformed': {
        const text = '{"id": "broken", "content": [ {"type": "text", "text": "unterminated';
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
        return;
      }
      case 'empty':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': 0 });
        res.end();
        return;
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  url = `http://127.0.0.1:${port}`;
  return {
    url,
    requests,
    get requestCount() {
      return requestCount;
    },
    batches: batchApi.batches,
    files: batchApi.files,
    get maxConcurrentBatchSubmissions() {
      return batchApi.maxConcurrentSubmissions;
    },
    get rateLimitStats() {
      return enforcer?.stats ?? noRateStats;
    },
    get tokenCountRequests() {
      return tokenCountRequests;
    },
    setHandler(next) {
      handler = next;
    },
    setBatchPlan(planner) {
      batchApi.setPlanner(planner);
    },
    queueBatchFault(route, fault, times) {
      batchApi.queueFault(route, fault, times);
    },
    clearBatchFaults() {
      batchApi.clearFaults();
    },
    batchFaultsLeft() {
      return batchApi.faultsLeft();
    },
    releaseBatches(id) {
      batchApi.release(id);
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The answer budget a request reserves: `max_tokens` / `max_completion_tokens`, else 4,096. */
function answerBudgetOf(body: Record<string, unknown>): number {
  const limit = body.max_completion_tokens ?? body.max_tokens;
  return typeof limit === 'number' ? limit : 4096;
}

function outputTokensOf(payload: { usage: { output_tokens?: number; completion_tokens?: number } }): number {
  return payload.usage.output_tokens ?? payload.usage.completion_tokens ?? 0;
}

/** An answer longer than the request's token limit is cut there, as the providers do. */
function truncateToTokens(text: string, limit: unknown): { text: string; cut: boolean } {
  if (typeof limit !== 'number' || approximateTokens(text) <= limit) return { text, cut: false };
  // Decoding a byte prefix drops a split trailing character instead of producing U+FFFD garbage.
  const bytes = Buffer.from(text).subarray(0, limit * 4);
  return { text: new TextDecoder().decode(bytes).replace(/\uFFFD$/, ''), cut: true };
}

function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let i = 0;
  while (i < limit && a.charCodeAt(i) === b.charCodeAt(i)) i += 1;
  return i;
}

/**
 * Environment that points both SDKs at a fake server, with dummy keys: pass it as
 * `createLlmClient(spec, { env: fakeProviderEnv(server) })`.
 */
export function fakeProviderEnv(server: Pick<FakeLlmServer, 'url'>): Record<string, string> {
  return {
    ANTHROPIC_API_KEY: 'fake-anthropic-key',
    ANTHROPIC_BASE_URL: server.url,
    OPENAI_API_KEY: 'fake-openai-key',
    OPENAI_BASE_URL: `${server.url}/v1`,
  };
}

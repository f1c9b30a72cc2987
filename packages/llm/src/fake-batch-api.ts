import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ErrorReply, errorBody, type FakeProvider, sendError, sendJson } from './fake-http';

/** How one batch behaves, chosen when it is created. */
export interface FakeBatchPlan {
  /**
   * Status requests (`GET` of the batch) answered "in progress" before it ends (default 1);
   * `Infinity` holds it until {@link FakeBatchApi.release} or `endBatch`.
   */
  pollsBeforeEnd?: number;
  /** Or: it ends once this many ms have passed since creation (whichever comes first). */
  processingMs?: number;
  /**
   * `completed` (default): every entry is answered. `expired`: the batch ends `expired` with only
   * the first `answered` entries processed, the rest expired. `failed` (OpenAI only): validation
   * fails, no results.
   */
  outcome?: 'completed' | 'expired' | 'failed';
  answered?: number;
  /** Entries that end expired or canceled whatever the handler would say. */
  entryOutcomes?: Record<string, 'expired' | 'canceled'>;
}

export interface FakeBatchInfo {
  provider: FakeProvider;
  id: string;
  /** 0 for the first batch the server created, 1 for the next, … */
  index: number;
  customIds: string[];
}

export type FakeBatchPlanner = (batch: FakeBatchInfo) => FakeBatchPlan;

/**
 * A call of the batch APIs that can be made to fail: the file upload (OpenAI), the batch create, or
 * the reading of an ended batch's results (Anthropic's `/results`, OpenAI's output file content).
 */
export type FakeBatchRoute = 'upload' | 'create' | 'results';

/**
 * An error answer, or `lost`: the batch is created but the answer is a 500 (the client cannot know);
 * `lost` means nothing for `results` (they are answered).
 */
export type FakeBatchFault = (ErrorReply & { kind?: 'status' }) | { kind: 'lost' };

/** What one entry's request got from the scripted handler. */
export type FakeEntryAnswer = { ok: Record<string, unknown> } | { status: number; message: string };

export interface FakeBatch {
  provider: FakeProvider;
  id: string;
  customIds: string[];
  /** The provider's status now (`in_progress`, `ended`, `completed`, `expired`, …). */
  status: string;
  /** Status requests received. */
  polls: number;
  createdAt: number;
  plan: FakeBatchPlan;
  canceled: boolean;
  metadata?: Record<string, string>;
  inputFileId?: string;
  outputFileId?: string;
  errorFileId?: string;
}

export interface FakeFile {
  id: string;
  purpose: string;
  filename: string;
  bytes: Buffer;
}

export interface FakeBatchLimits {
  maxRequests: number;
  maxBytes: number;
}

interface Stored {
  batch: FakeBatch;
  entries: Array<{ customId: string; body: Record<string, unknown> }>;
  /** Set when the batch ended: each entry's result in the provider's format. */
  results?: Map<string, Record<string, unknown>>;
  ending?: Promise<void>;
  forceEnd: boolean;
  /** OpenAI: what validation found wrong with the input file (the batch then fails). */
  validationErrors?: Array<{ code: string; message: string; line: number | null }>;
}

const ANTHROPIC_CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Anthropic Message Batches and OpenAI Batch (with its Files API) over the fake server. Entries
 * are answered by the same scripted handler as online calls, when the batch ends.
 */
export class FakeBatchApi {
  readonly batches: FakeBatch[] = [];
  readonly files: FakeFile[] = [];
  private readonly stored = new Map<string, Stored>();
  private faults: Record<FakeBatchRoute, FakeBatchFault[]> = { upload: [], create: [], results: [] };
  private submissionsInFlight = 0;
  /** The most upload and create calls that were being answered at once. */
  maxConcurrentSubmissions = 0;

  constructor(
    private readonly deps: {
      answer: (
        provider: FakeProvider,
        body: Record<string, unknown>,
        meta: { batchId: string; customId: string },
      ) => Promise<FakeEntryAnswer>;
      url: () => string;
      limits: { anthropic: FakeBatchLimits; openai: FakeBatchLimits };
      /** Keep the request bodies of ended batches (false: forgotten once answered, for scale runs). */
      keepBodies?: boolean;
      /** Time an upload or create call takes to answer, in ms. */
      submitLatencyMs?: number;
    },
    private planner: FakeBatchPlanner = () => ({}),
  ) {}

  setPlanner(planner: FakeBatchPlanner): void {
    this.planner = planner;
  }

  /** Scripted faults not yet used, every route together. */
  faultsLeft(): number {
    return this.faults.upload.length + this.faults.create.length + this.faults.results.length;
  }

  clearFaults(): void {
    this.faults = { upload: [], create: [], results: [] };
  }

  queueFault(route: FakeBatchRoute, fault: FakeBatchFault, times = 1): void {
    for (let i = 0; i < times; i += 1) this.faults[route].push(fault);
  }

  /** Ends the batch at its next status request (every held batch when no id is given). */
  release(id?: string): void {
    for (const stored of this.stored.values())
      if (id === undefined || stored.batch.id === id) stored.forceEnd = true;
  }

  /** Handles a batch route; false when the path is none of them. */
  async route(req: IncomingMessage, res: ServerResponse, path: string, raw: Buffer): Promise<boolean> {
    const method = req.method ?? 'GET';
    const query = new URL(req.url ?? '/', 'http://fake').searchParams;
    if (method === 'POST' && ['/v1/messages/batches', '/v1/files', '/v1/batches'].includes(path)) {
      this.submissionsInFlight += 1;
      this.maxConcurrentSubmissions = Math.max(this.maxConcurrentSubmissions, this.submissionsInFlight);
      try {
        const latency = this.deps.submitLatencyMs ?? 0;
        if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));
        if (path === '/v1/messages/batches') await this.anthropicCreate(req, res, raw);
        else if (path === '/v1/files') await this.upload(req, res, raw);
        else await this.openAiCreate(res, raw);
      } finally {
        this.submissionsInFlight -= 1;
      }
      return true;
    }
    if (path === '/v1/messages/batches') {
      this.list(res, 'anthropic', query);
      return true;
    }
    const anthropicBatch = path.match(/^\/v1\/messages\/batches\/([^/]+)(\/results|\/cancel)?$/);
    if (anthropicBatch) {
      const [, id, action] = anthropicBatch as [string, string, string | undefined];
      const stored = this.find('anthropic', id);
      if (!stored) sendError(res, 'anthropic', { status: 404, message: `no batch ${id}` });
      else if (action === '/cancel') this.cancel(res, stored);
      else if (action === '/results') this.anthropicResults(res, stored);
      else await this.retrieve(res, stored);
      return true;
    }
    const fileRoute = path.match(/^\/v1\/files\/([^/]+)(\/content)?$/);
    if (fileRoute) {
      const [, id, content] = fileRoute as [string, string, string | undefined];
      const file = this.files.find((candidate) => candidate.id === id);
      if (!file) sendError(res, 'openai', { status: 404, message: `No such File object: ${id}` });
      else if (content) {
        if (file.purpose === 'batch_output' && this.takeFault(res, 'openai', 'results') === true) return true;
        res.writeHead(200, {
          'content-type': 'application/octet-stream',
          'content-length': file.bytes.length,
        });
        res.end(file.bytes);
      } else sendJson(res, 200, fileObject(file));
      return true;
    }
    if (path === '/v1/batches') {
      this.list(res, 'openai', query);
      return true;
    }
    const openAiBatch = path.match(/^\/v1\/batches\/([^/]+)(\/cancel)?$/);
    if (openAiBatch) {
      const [, id, cancel] = openAiBatch as [string, string, string | undefined];
      const stored = this.find('openai', id);
      if (!stored) sendError(res, 'openai', { status: 404, message: `No batch found with id '${id}'` });
      else if (cancel) this.cancel(res, stored);
      else await this.retrieve(res, stored);
      return true;
    }
    return false;
  }

  private find(provider: FakeProvider, id: string): Stored | undefined {
    const stored = this.stored.get(id);
    return stored?.batch.provider === provider ? stored : undefined;
  }

  /** The next scripted fault of a route; `lost` is handled by the caller (create, then answer 500). */
  private takeFault(res: ServerResponse, provider: FakeProvider, route: FakeBatchRoute): 'lost' | boolean {
    const fault = this.faults[route].shift();
    if (!fault) return false;
    if (fault.kind === 'lost') return 'lost';
    sendError(res, provider, fault);
    return true;
  }

  private async anthropicCreate(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    const fault = this.takeFault(res, 'anthropic', 'create');
    if (fault === true) return;
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) {
      sendError(res, 'anthropic', { status: 400, message: 'content-type: expected application/json' });
      return;
    }
    const limits = this.deps.limits.anthropic;
    if (raw.length > limits.maxBytes) {
      sendError(res, 'anthropic', {
        status: 413,
        message: `batch of ${raw.length} bytes exceeds ${limits.maxBytes}`,
      });
      return;
    }
    const body = parseJson(raw);
    const requests = Array.isArray(body?.requests)
      ? (body.requests as Array<Record<string, unknown>>)
      : undefined;
    if (!requests || requests.length === 0) {
      sendError(res, 'anthropic', { status: 400, message: 'requests: at least one request is required' });
      return;
    }
    if (requests.length > limits.maxRequests) {
      sendError(res, 'anthropic', {
        status: 413,
        message: `a batch may hold ${limits.maxRequests} requests, got ${requests.length}`,
      });
      return;
    }
    const seen = new Set<string>();
    for (const request of requests) {
      const customId = request.custom_id;
      if (typeof customId !== 'string' || !ANTHROPIC_CUSTOM_ID.test(customId) || seen.has(customId)) {
        sendError(res, 'anthropic', {
          status: 400,
          message: `invalid or duplicate custom_id ${String(customId)}`,
        });
        return;
      }
      seen.add(customId);
      if (typeof request.params !== 'object' || request.params === null) {
        sendError(res, 'anthropic', { status: 400, message: `requests.${customId}.params: required` });
        return;
      }
    }
    const stored = this.add(
      'anthropic',
      `msgbatch_${randomBytes(12).toString('hex')}`,
      requests.map((request) => ({
        customId: request.custom_id as string,
        body: request.params as Record<string, unknown>,
      })),
    );
    if (fault === 'lost') sendError(res, 'anthropic', { status: 500, message: 'Internal server error' });
    else sendJson(res, 200, this.anthropicObject(stored));
  }

  private async upload(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    const fault = this.takeFault(res, 'openai', 'upload');
    if (fault === true) return;
    let form: FormData;
    try {
      form = await new Response(new Uint8Array(raw), {
        headers: { 'content-type': String(req.headers['content-type'] ?? '') },
      }).formData();
    } catch (error) {
      sendError(res, 'openai', {
        status: 400,
        message: `not multipart form data (${(error as Error).message})`,
      });
      return;
    }
    const file = form.get('file');
    const purpose = form.get('purpose');
    if (!(file instanceof Blob) || typeof purpose !== 'string') {
      sendError(res, 'openai', { status: 400, message: "'file' and 'purpose' are required" });
      return;
    }
    const stored: FakeFile = {
      id: `file-${randomBytes(12).toString('hex')}`,
      purpose,
      filename: (file as File).name ?? 'upload',
      bytes: Buffer.from(await file.arrayBuffer()),
    };
    this.files.push(stored);
    if (fault === 'lost') sendError(res, 'openai', { status: 500, message: 'Internal server error' });
    else sendJson(res, 200, fileObject(stored));
  }

  private async openAiCreate(res: ServerResponse, raw: Buffer): Promise<void> {
    const fault = this.takeFault(res, 'openai', 'create');
    if (fault === true) return;
    const body = parseJson(raw);
    const input = this.files.find((file) => file.id === body?.input_file_id);
    if (!body || !input) {
      sendError(res, 'openai', {
        status: 400,
        message: `input_file_id ${String(body?.input_file_id)} not found`,
      });
      return;
    }
    if (body.endpoint !== '/v1/chat/completions' || body.completion_window !== '24h') {
      sendError(res, 'openai', {
        status: 400,
        message: 'endpoint must be /v1/chat/completions, completion_window 24h',
      });
      return;
    }
    const { entries, errors } = this.readInput(input);
    const stored = this.add(
      'openai',
      `batch_${randomBytes(12).toString('hex')}`,
      entries,
      body.metadata as Record<string, string> | undefined,
    );
    stored.batch.inputFileId = input.id;
    if (errors.length > 0) stored.batch.plan = { ...stored.batch.plan, outcome: 'failed' };
    stored.validationErrors = errors;
    if (fault === 'lost') sendError(res, 'openai', { status: 500, message: 'Internal server error' });
    else sendJson(res, 200, this.openAiObject(stored));
  }

  /** The lines of an input file, and the validation errors OpenAI would report for it. */
  private readInput(file: FakeFile): {
    entries: Stored['entries'];
    errors: Array<{ code: string; message: string; line: number | null }>;
  } {
    const limits = this.deps.limits.openai;
    const errors: Array<{ code: string; message: string; line: number | null }> = [];
    if (file.bytes.length > limits.maxBytes)
      errors.push({ code: 'file_too_large', message: `over ${limits.maxBytes} bytes`, line: null });
    const entries: Stored['entries'] = [];
    const models = new Set<string>();
    const seen = new Set<string>();
    file.bytes
      .toString('utf8')
      .split('\n')
      .forEach((text, index) => {
        if (text.trim() === '') return;
        const line = parseJson(Buffer.from(text));
        const customId = line?.custom_id;
        const body = line?.body as Record<string, unknown> | undefined;
        if (typeof customId !== 'string' || seen.has(customId) || line?.method !== 'POST' || !body) {
          errors.push({ code: 'invalid_request', message: 'bad line', line: index + 1 });
          return;
        }
        if (line.url !== '/v1/chat/completions')
          errors.push({ code: 'mismatched_endpoint', message: String(line.url), line: index + 1 });
        seen.add(customId);
        models.add(String(body.model));
        entries.push({ customId, body });
      });
    if (entries.length > limits.maxRequests)
      errors.push({ code: 'too_many_requests', message: `over ${limits.maxRequests} requests`, line: null });
    if (models.size > 1)
      errors.push({ code: 'mismatched_model', message: 'one model per batch', line: null });
    return { entries, errors };
  }

  private add(
    provider: FakeProvider,
    id: string,
    entries: Stored['entries'],
    metadata?: Record<string, string>,
  ): Stored {
    const customIds = entries.map((entry) => entry.customId);
    const plan = this.planner({ provider, id, index: this.batches.length, customIds });
    const batch: FakeBatch = {
      provider,
      id,
      customIds,
      status: provider === 'anthropic' ? 'in_progress' : 'validating',
      polls: 0,
      createdAt: Date.now(),
      plan,
      canceled: false,
      ...(metadata ? { metadata } : {}),
    };
    this.batches.push(batch);
    const stored: Stored = { batch, entries, forceEnd: false };
    this.stored.set(id, stored);
    return stored;
  }

  private async retrieve(res: ServerResponse, stored: Stored): Promise<void> {
    const { batch } = stored;
    batch.polls += 1;
    if (!stored.results) {
      const { pollsBeforeEnd = 1, processingMs } = batch.plan;
      const due =
        stored.forceEnd ||
        batch.canceled ||
        batch.polls > pollsBeforeEnd ||
        (processingMs !== undefined && Date.now() - batch.createdAt >= processingMs);
      if (due) {
        stored.ending ??= this.end(stored);
        await stored.ending;
      } else if (batch.provider === 'openai') batch.status = 'in_progress';
    }
    sendJson(
      res,
      200,
      batch.provider === 'anthropic' ? this.anthropicObject(stored) : this.openAiObject(stored),
    );
  }

  private cancel(res: ServerResponse, stored: Stored): void {
    const { batch } = stored;
    if (!stored.results) {
      batch.canceled = true;
      batch.status = batch.provider === 'anthropic' ? 'canceling' : 'cancelling';
    }
    sendJson(
      res,
      200,
      batch.provider === 'anthropic' ? this.anthropicObject(stored) : this.openAiObject(stored),
    );
  }

  /** Runs every entry through the handler (the processed ones) and writes the results. */
  private async end(stored: Stored): Promise<void> {
    const { batch } = stored;
    const { outcome = 'completed', entryOutcomes = {} } = batch.plan;
    const results = new Map<string, Record<string, unknown>>();
    if (batch.provider === 'openai' && outcome === 'failed') {
      batch.status = 'failed';
      stored.results = results;
      return;
    }
    const processed =
      batch.canceled || outcome === 'expired' ? (batch.plan.answered ?? 0) : stored.entries.length;
    for (const [index, entry] of stored.entries.entries()) {
      const forced = entryOutcomes[entry.customId];
      const skipped = index >= processed ? (batch.canceled ? 'canceled' : 'expired') : undefined;
      const kind = forced ?? skipped;
      if (kind) {
        results.set(entry.customId, this.unprocessedLine(batch.provider, entry.customId, kind));
        continue;
      }
      const answer = await this.deps.answer(batch.provider, entry.body, {
        batchId: batch.id,
        customId: entry.customId,
      });
      results.set(entry.customId, this.answerLine(batch.provider, entry.customId, answer));
    }
    stored.results = results;
    if (this.deps.keepBodies === false) for (const entry of stored.entries) entry.body = {};
    if (batch.provider === 'anthropic') {
      batch.status = 'ended';
      return;
    }
    batch.status = batch.canceled ? 'cancelled' : outcome === 'expired' ? 'expired' : 'completed';
    const ok: string[] = [];
    const failed: string[] = [];
    for (const line of results.values()) {
      const response = line.response as { status_code?: number } | null;
      (response?.status_code === 200 ? ok : failed).push(`${JSON.stringify(line)}\n`);
    }
    if (ok.length > 0) batch.outputFileId = this.storeFile(`batch_${batch.id}_output.jsonl`, ok.join(''));
    if (failed.length > 0)
      batch.errorFileId = this.storeFile(`batch_${batch.id}_error.jsonl`, failed.join(''));
  }

  private storeFile(filename: string, text: string): string {
    const file: FakeFile = {
      id: `file-${randomBytes(12).toString('hex')}`,
      purpose: 'batch_output',
      filename,
      bytes: Buffer.from(text),
    };
    this.files.push(file);
    return file.id;
  }

  private answerLine(
    provider: FakeProvider,
    customId: string,
    answer: FakeEntryAnswer,
  ): Record<string, unknown> {
    if (provider === 'anthropic')
      return 'ok' in answer
        ? { custom_id: customId, result: { type: 'succeeded', message: answer.ok } }
        : {
            custom_id: customId,
            result: { type: 'errored', error: errorBody('anthropic', answer.status, answer.message) },
          };
    const requestId = `req_${randomBytes(8).toString('hex')}`;
    return {
      id: `batch_req_${randomBytes(8).toString('hex')}`,
      custom_id: customId,
      response:
        'ok' in answer
          ? { status_code: 200, request_id: requestId, body: answer.ok }
          : {
              status_code: answer.status,
              request_id: requestId,
              body: errorBody('openai', answer.status, answer.message),
            },
      error: null,
    };
  }

  private unprocessedLine(
    provider: FakeProvider,
    customId: string,
    kind: 'expired' | 'canceled',
  ): Record<string, unknown> {
    if (provider === 'anthropic') return { custom_id: customId, result: { type: kind } };
    return {
      id: `batch_req_${randomBytes(8).toString('hex')}`,
      custom_id: customId,
      response: null,
      error:
        kind === 'expired'
          ? {
              code: 'batch_expired',
              message: 'This request could not be executed before the completion window expired.',
            }
          : { code: 'batch_cancelled', message: 'This request was cancelled before it was executed.' },
    };
  }

  private anthropicResults(res: ServerResponse, stored: Stored): void {
    if (this.takeFault(res, 'anthropic', 'results') === true) return;
    if (!stored.results) {
      sendError(res, 'anthropic', { status: 404, message: 'results are not available until the batch ends' });
      return;
    }
    const text = [...stored.results.values()].map((line) => `${JSON.stringify(line)}\n`).join('');
    res.writeHead(200, { 'content-type': 'application/binary', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }

  private anthropicObject(stored: Stored): Record<string, unknown> {
    const { batch } = stored;
    const counts = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
    if (!stored.results) counts.processing = stored.entries.length;
    else
      for (const line of stored.results.values()) {
        const type = (line.result as { type: keyof typeof counts }).type;
        counts[type] += 1;
      }
    const iso = (ms: number) => new Date(ms).toISOString();
    return {
      id: batch.id,
      type: 'message_batch',
      processing_status: batch.status,
      request_counts: counts,
      ended_at: stored.results ? iso(Date.now()) : null,
      created_at: iso(batch.createdAt),
      expires_at: iso(batch.createdAt + 24 * 3_600_000),
      archived_at: null,
      cancel_initiated_at: batch.canceled ? iso(Date.now()) : null,
      results_url: stored.results ? `${this.deps.url()}/v1/messages/batches/${batch.id}/results` : null,
    };
  }

  private openAiObject(stored: Stored): Record<string, unknown> {
    const { batch } = stored;
    let failed = 0;
    for (const line of stored.results?.values() ?? [])
      if ((line.response as { status_code?: number } | null)?.status_code !== 200) failed += 1;
    const seconds = Math.floor(batch.createdAt / 1000);
    return {
      id: batch.id,
      object: 'batch',
      endpoint: '/v1/chat/completions',
      errors:
        batch.status === 'failed'
          ? {
              object: 'list',
              data: stored.validationErrors?.length
                ? stored.validationErrors
                : [{ code: 'invalid_request', message: 'the batch failed validation', line: null }],
            }
          : null,
      input_file_id: batch.inputFileId,
      completion_window: '24h',
      status: batch.status,
      output_file_id: batch.outputFileId ?? null,
      error_file_id: batch.errorFileId ?? null,
      created_at: seconds,
      in_progress_at: batch.status === 'validating' ? null : seconds,
      expires_at: seconds + 24 * 3600,
      request_counts: {
        total: stored.entries.length,
        completed: stored.results ? stored.results.size - failed : 0,
        failed,
      },
      metadata: batch.metadata ?? null,
    };
  }

  /** Newest first, with cursor pagination (`after_id` at Anthropic, `after` at OpenAI). */
  private list(res: ServerResponse, provider: FakeProvider, query: URLSearchParams): void {
    const all = [...this.stored.values()].filter((stored) => stored.batch.provider === provider).reverse();
    const after = query.get(provider === 'anthropic' ? 'after_id' : 'after');
    const start = after ? all.findIndex((stored) => stored.batch.id === after) + 1 : 0;
    const limit = Number(query.get('limit') ?? 20);
    const page = all.slice(start, start + limit);
    const data = page.map((stored) =>
      provider === 'anthropic' ? this.anthropicObject(stored) : this.openAiObject(stored),
    );
    sendJson(res, 200, {
      ...(provider === 'openai' ? { object: 'list' } : {}),
      data,
      has_more: start + limit < all.length,
      first_id: page[0]?.batch.id ?? null,
      last_id: page.at(-1)?.batch.id ?? null,
    });
  }
}

function fileObject(file: FakeFile): Record<string, unknown> {
  return {
    id: file.id,
    object: 'file',
    bytes: file.bytes.length,
    created_at: Math.floor(Date.now() / 1000),
    filename: file.filename,
    purpose: file.purpose,
    status: 'processed',
  };
}

function parseJson(raw: Buffer): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(raw.toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

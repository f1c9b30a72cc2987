import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { ConfigError, InputError, ProviderError, writeFileAtomic, ZipArchive } from '@xsb/core';

/** The hosted MinerU service; `MINERU_BASE_URL` overrides it (with or without the `/api/v4` suffix). */
export const MINERU_DEFAULT_BASE_URL = 'https://mineru.net';

export interface MineruParseOptions {
  env: Record<string, string | undefined>;
  sourceSha256: string;
  /** Folder for cached markdown (`<sha256>.md`); undefined disables the cache. */
  cacheDir?: string | undefined;
  fetch?: typeof fetch;
  /** Hosted API; defaults 3000 ms and 10 minutes. */
  pollIntervalMs?: number;
  timeoutMs?: number;
}

export interface MineruParseResult {
  markdown: string;
  /** `local` for MINERU_API_URL (mineru-api `/file_parse`), `hosted` for MINERU_API_KEY (v4 API). */
  endpoint: 'hosted' | 'local' | 'cache';
  cached: boolean;
}

export function resolveMineruCacheDir(env: Record<string, string | undefined>): string | undefined {
  return env.XSLIDESBENCH_MINERU_CACHE_DIR || undefined;
}

const PENDING_STATES = new Set(['waiting-file', 'pending', 'running', 'converting']);
const REQUEST_TIMEOUT_MS = 120_000;

/**
 * PDF → markdown with MinerU. `MINERU_API_URL` wins over `MINERU_API_KEY` (the hosted API): it keeps
 * documents on the user's machines. The API key goes only to the API host, never to upload or result
 * URLs, and never into errors.
 */
export async function parsePdfWithMineru(
  bytes: Uint8Array,
  file: string,
  options: MineruParseOptions,
): Promise<MineruParseResult> {
  const cacheFile = options.cacheDir ? join(options.cacheDir, `${options.sourceSha256}.md`) : undefined;
  if (cacheFile) {
    const cached = await readCached(cacheFile);
    if (cached !== undefined) return { markdown: cached, endpoint: 'cache', cached: true };
  }
  const apiUrl = options.env.MINERU_API_URL?.trim();
  const apiKey = options.env.MINERU_API_KEY?.trim();
  const http = options.fetch ?? fetch;
  let markdown: string;
  let endpoint: 'hosted' | 'local';
  if (apiUrl) {
    markdown = await parseWithLocalServer(http, apiUrl, bytes, file);
    endpoint = 'local';
  } else if (apiKey) {
    const baseUrl = options.env.MINERU_BASE_URL?.trim() || MINERU_DEFAULT_BASE_URL;
    markdown = await parseWithHostedApi(http, baseUrl, apiKey, bytes, file, options);
    endpoint = 'hosted';
  } else {
    throw new ConfigError(
      'the mineru PDF parser needs MINERU_API_URL (a mineru-api server) or MINERU_API_KEY (the hosted API); set one, or parse PDFs with unpdf',
      { code: 'mineru_not_configured' },
    );
  }
  const cleaned = markdown
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .trim();
  if (cleaned === '') {
    throw new InputError('MinerU returned no text for this PDF', { file, code: 'no_text_layer' });
  }
  if (cacheFile) await writeFileAtomic(cacheFile, cleaned);
  return { markdown: cleaned, endpoint, cached: false };
}

async function readCached(cacheFile: string): Promise<string | undefined> {
  try {
    const text = await readFile(cacheFile, 'utf8');
    return text.trim() === '' ? undefined : text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** `mineru-api`'s `POST /file_parse`: answers `{ results: { <file stem>: { md_content } } }`. */
async function parseWithLocalServer(
  http: typeof fetch,
  apiUrl: string,
  bytes: Uint8Array,
  file: string,
): Promise<string> {
  const url = /\/file_parse\/?$/.test(apiUrl) ? apiUrl : `${apiUrl.replace(/\/+$/, '')}/file_parse`;
  const name = basename(file);
  const form = new FormData();
  form.append('files', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), name);
  form.append('return_md', 'true');
  form.append('response_format_zip', 'false');
  const body = await requestJson(http, url, { method: 'POST', body: form }, 'mineru-api /file_parse');
  const results = (body as { results?: Record<string, { md_content?: unknown }> }).results;
  const stem = name.replace(/\.[^.]*$/, '');
  const entry = results?.[stem] ?? (results ? Object.values(results)[0] : undefined);
  if (!entry || typeof entry.md_content !== 'string') {
    throw badResponse(`mineru-api answer has no results.${stem}.md_content (${describeShape(body)})`);
  }
  return entry.md_content;
}

/**
 * Hosted v4 API: file-urls/batch gives a pre-signed upload URL; the PDF is PUT there without
 * Content-Type (the docs require it), then extract-results/batch is polled until done or failed.
 */
async function parseWithHostedApi(
  http: typeof fetch,
  baseUrl: string,
  apiKey: string,
  bytes: Uint8Array,
  file: string,
  options: MineruParseOptions,
): Promise<string> {
  const api = `${baseUrl.replace(/\/+$/, '').replace(/\/api\/v4$/, '')}/api/v4`;
  const auth = { Authorization: `Bearer ${apiKey}` };
  const name = basename(file);
  const dataId = options.sourceSha256.slice(0, 32);
  const created = await requestEnvelope(
    http,
    `${api}/file-urls/batch`,
    {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ files: [{ name, data_id: dataId }], enable_formula: true, enable_table: true }),
    },
    'file-urls/batch',
  );
  const batchId = (created as { batch_id?: unknown }).batch_id;
  const uploadUrl = (created as { file_urls?: unknown[] }).file_urls?.[0];
  if (typeof batchId !== 'string' || typeof uploadUrl !== 'string') {
    throw badResponse(`file-urls/batch answer lacks batch_id or file_urls (${describeShape(created)})`);
  }
  const upload = await send(http, uploadUrl, { method: 'PUT', body: new Uint8Array(bytes) }, 'upload');
  if (!upload.ok) {
    throw new ProviderError('mineru', `uploading the PDF failed with HTTP ${upload.status}`, {
      status: upload.status,
      retryable: upload.status >= 500,
    });
  }
  const pollIntervalMs = options.pollIntervalMs ?? 3000;
  const deadline = Date.now() + (options.timeoutMs ?? 600_000);
  for (;;) {
    const status = await requestEnvelope(
      http,
      `${api}/extract-results/batch/${encodeURIComponent(batchId)}`,
      { method: 'GET', headers: auth },
      'extract-results/batch',
    );
    const results = (status as { extract_result?: unknown }).extract_result;
    const list = Array.isArray(results) ? (results as Array<Record<string, unknown>>) : [];
    const mine = list.find((r) => r.data_id === dataId) ?? list.find((r) => r.file_name === name) ?? list[0];
    const state = typeof mine?.state === 'string' ? mine.state : 'waiting-file';
    if (state === 'done') {
      if (typeof mine?.full_zip_url !== 'string') {
        throw badResponse('task is done but has no full_zip_url');
      }
      return await downloadFullMarkdown(http, mine.full_zip_url);
    }
    if (state === 'failed') {
      const reason = typeof mine?.err_msg === 'string' && mine.err_msg ? mine.err_msg : 'no reason given';
      throw new InputError(`MinerU could not parse the PDF (${reason})`, { file, code: 'mineru_failed' });
    }
    if (!PENDING_STATES.has(state)) {
      throw badResponse(`unknown task state ${JSON.stringify(state)}`);
    }
    if (Date.now() + pollIntervalMs > deadline) {
      throw new ProviderError('mineru', `task ${batchId} still "${state}" when the time limit ran out`, {
        code: 'mineru_timeout',
        retryable: true,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, pollIntervalMs));
  }
}

/** The result zip's `full.md`; no credentials: it is a CDN link. */
async function downloadFullMarkdown(http: typeof fetch, zipUrl: string): Promise<string> {
  const response = await send(http, zipUrl, { method: 'GET' }, 'result download');
  if (!response.ok) {
    throw new ProviderError('mineru', `downloading the result zip failed with HTTP ${response.status}`, {
      status: response.status,
      retryable: response.status >= 500,
    });
  }
  // Read with the same capped reader as decks: a hostile or broken result cannot inflate without bound.
  let markdown: Buffer | undefined;
  try {
    const archive = ZipArchive.open(Buffer.from(await response.arrayBuffer()), 'MinerU result zip');
    const first = archive
      .names()
      .filter((name) => name === 'full.md' || name.endsWith('/full.md'))
      .sort((a, b) => a.length - b.length)[0];
    markdown = first === undefined ? undefined : archive.read(first);
  } catch (error) {
    throw badResponse(`the result zip is unreadable (${(error as Error).message})`, error);
  }
  if (markdown === undefined) {
    throw badResponse('the result zip holds no full.md');
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(markdown);
  } catch (error) {
    throw badResponse('full.md in the result zip is not valid UTF-8', error);
  }
}

async function send(http: typeof fetch, url: string, init: RequestInit, what: string): Promise<Response> {
  try {
    return await http(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (error) {
    throw new ProviderError('mineru', `${what} request failed (${(error as Error).message})`, {
      code: 'mineru_network',
      retryable: true,
      cause: error,
    });
  }
}

async function requestJson(
  http: typeof fetch,
  url: string,
  init: RequestInit,
  what: string,
): Promise<unknown> {
  const response = await send(http, url, init, what);
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const reason = errorReason(body) ?? (text.slice(0, 200) || 'no body');
    throw new ProviderError('mineru', `${what} failed with HTTP ${response.status}: ${reason}`, {
      status: response.status,
      retryable: response.status === 429 || response.status >= 500,
    });
  }
  if (body === undefined) {
    throw badResponse(`${what} answered with non-JSON (${text.slice(0, 100)})`);
  }
  return body;
}

/** Hosted API calls answer `{ code, msg, data }`; a non-zero code is an error even with HTTP 200. */
async function requestEnvelope(
  http: typeof fetch,
  url: string,
  init: RequestInit,
  what: string,
): Promise<unknown> {
  const body = (await requestJson(http, url, init, what)) as {
    code?: unknown;
    msg?: unknown;
    data?: unknown;
  };
  if (body.code !== 0 && body.code !== '0') {
    const status = body.code === 'A0202' || body.code === 'A0211' ? 401 : undefined;
    throw new ProviderError(
      'mineru',
      `${what} refused: code ${String(body.code)}, ${String(body.msg ?? 'no message')}`,
      {
        code: 'mineru_api_error',
        ...(status ? { status } : {}),
      },
    );
  }
  if (body.data === null || typeof body.data !== 'object') {
    throw badResponse(`${what} answer has no data object`);
  }
  return body.data;
}

function errorReason(body: unknown): string | undefined {
  if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    for (const key of ['error', 'detail', 'msg', 'message']) {
      const value = record[key];
      if (typeof value === 'string' && value) return value;
      if (value !== undefined && value !== null) return JSON.stringify(value).slice(0, 200);
    }
  }
  return undefined;
}

function describeShape(value: unknown): string {
  if (value === null || typeof value !== 'object') return typeof value;
  return `keys: ${Object.keys(value).join(', ') || 'none'}`;
}

function badResponse(message: string, cause?: unknown): ProviderError {
  return new ProviderError('mineru', message, { code: 'mineru_bad_response', cause });
}

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, InputError, ProviderError, ZipArchive } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeMineruServer, startFakeMineruServer } from './fake-mineru-server';
import { parsePdfWithMineru } from './mineru-client';
import { buildTextPdf } from './testing';

const pdf = buildTextPdf([['A page for MinerU']]);
const sha = 'a'.repeat(64);
let server: FakeMineruServer | undefined;
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function tempDir(): Promise<string> {
  const { dir, cleanup } = await makeTempDir('xsb-mineru-');
  cleanups.push(cleanup);
  return dir;
}

describe('parsePdfWithMineru, hosted v4 API (MINERU_API_KEY)', () => {
  it('asks for an upload URL, uploads the PDF, polls until done and reads full.md from the zip', async () => {
    server = await startFakeMineruServer({
      markdown: '# Report\n\nCOP was 3.4.',
      apiKey: 'k-123',
      runningPolls: 2,
    });
    const result = await parsePdfWithMineru(pdf, '/data/sources/c1/report.pdf', {
      env: { MINERU_API_KEY: 'k-123', MINERU_BASE_URL: server.url },
      sourceSha256: sha,
      pollIntervalMs: 1,
    });
    expect(result).toEqual({ markdown: '# Report\n\nCOP was 3.4.', endpoint: 'hosted', cached: false });
    const calls = server.requests.map((r) => `${r.method} ${r.path.replace(/\?.*$/, '')}`);
    expect(calls).toEqual([
      'POST /api/v4/file-urls/batch',
      'PUT /upload/batch-1',
      'GET /api/v4/extract-results/batch/batch-1',
      'GET /api/v4/extract-results/batch/batch-1',
      'GET /api/v4/extract-results/batch/batch-1',
      'GET /results/batch-1.zip',
    ]);
    const create = server.requests[0]!;
    expect(create.authorization).toBe('Bearer k-123');
    expect(JSON.parse(create.body.toString('utf8')).files).toEqual([
      { name: 'report.pdf', data_id: sha.slice(0, 32) },
    ]);
    const upload = server.requests[1]!;
    expect(Buffer.compare(upload.body, Buffer.from(pdf))).toBe(0);
    // The key must not leak to the pre-signed upload URL or the CDN result link.
    expect(upload.authorization).toBeUndefined();
    expect(upload.contentType).toBeUndefined();
    expect(server.requests[5]!.authorization).toBeUndefined();
  });

  it('accepts a base URL that already ends in /api/v4', async () => {
    server = await startFakeMineruServer({ runningPolls: 0 });
    const result = await parsePdfWithMineru(pdf, 'a.pdf', {
      env: { MINERU_API_KEY: 'test-key', MINERU_BASE_URL: `${server.url}/api/v4/` },
      sourceSha256: sha,
      pollIntervalMs: 1,
    });
    expect(result.markdown).toBe('# Parsed\n\nText parsed by MinerU.');
  });

  it('reports a failed task as an input error naming the file and MinerU’s reason', async () => {
    server = await startFakeMineruServer({ failTask: 'file is encrypted', runningPolls: 1 });
    const error = await parsePdfWithMineru(pdf, 'locked.pdf', {
      env: { MINERU_API_KEY: 'test-key', MINERU_BASE_URL: server.url },
      sourceSha256: sha,
      pollIntervalMs: 1,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toBe('locked.pdf: MinerU could not parse the PDF (file is encrypted)');
  });

  it('reports a refused key without echoing it', async () => {
    server = await startFakeMineruServer({ apiKey: 'right' });
    const error = await parsePdfWithMineru(pdf, 'a.pdf', {
      env: { MINERU_API_KEY: 'wrong-secret', MINERU_BASE_URL: server.url },
      sourceSha256: sha,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).status).toBe(401);
    expect((error as Error).message).toMatch(/HTTP 401: Token error/);
    expect((error as Error).message).not.toContain('wrong-secret');
  });

  it('gives up after the time limit while the task is still running', async () => {
    server = await startFakeMineruServer({ runningPolls: 1000 });
    await expect(
      parsePdfWithMineru(pdf, 'a.pdf', {
        env: { MINERU_API_KEY: 'test-key', MINERU_BASE_URL: server.url },
        sourceSha256: sha,
        pollIntervalMs: 5,
        timeoutMs: 30,
      }),
    ).rejects.toThrow(/still "running" when the time limit ran out/);
  });
});

describe('parsePdfWithMineru, mineru-api server (MINERU_API_URL)', () => {
  it('posts the file as multipart to /file_parse and returns results.<stem>.md_content', async () => {
    server = await startFakeMineruServer({ markdown: 'Local markdown' });
    const result = await parsePdfWithMineru(pdf, '/x/lecture notes.pdf', {
      env: { MINERU_API_URL: server.url, MINERU_API_KEY: 'unused' },
      sourceSha256: sha,
    });
    expect(result).toEqual({ markdown: 'Local markdown', endpoint: 'local', cached: false });
    expect(server.requests).toHaveLength(1);
    const request = server.requests[0]!;
    expect(`${request.method} ${request.path}`).toBe('POST /file_parse');
    expect(request.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(request.authorization).toBeUndefined();
    const body = request.body.toString('latin1');
    expect(body).toContain('name="files"; filename="lecture notes.pdf"');
    expect(body).toContain('name="return_md"\r\n\r\ntrue');
    expect(request.body.includes(Buffer.from(pdf))).toBe(true);
  });

  it('turns an error answer into a provider error with the server’s reason', async () => {
    server = await startFakeMineruServer({ fileParseStatus: 500 });
    await expect(
      parsePdfWithMineru(pdf, 'a.pdf', {
        env: { MINERU_API_URL: `${server.url}/file_parse` },
        sourceSha256: sha,
      }),
    ).rejects.toThrow(/file_parse failed with HTTP 500: Failed to process file: simulated failure/);
  });

  it('turns an unreachable endpoint into a retryable provider error', async () => {
    const error = await parsePdfWithMineru(pdf, 'a.pdf', {
      env: { MINERU_API_URL: 'http://127.0.0.1:9' },
      sourceSha256: sha,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(true);
  });
});

describe('parsePdfWithMineru cache and configuration', () => {
  it('caches markdown by source hash: the second call makes no request', async () => {
    server = await startFakeMineruServer({ markdown: 'Cached once' });
    const cacheDir = await tempDir();
    const options = { env: { MINERU_API_URL: server.url }, sourceSha256: sha, cacheDir };
    expect((await parsePdfWithMineru(pdf, 'a.pdf', options)).cached).toBe(false);
    expect(await readFile(join(cacheDir, `${sha}.md`), 'utf8')).toBe('Cached once');
    const again = await parsePdfWithMineru(pdf, 'a.pdf', options);
    expect(again).toEqual({ markdown: 'Cached once', endpoint: 'cache', cached: true });
    expect(server.requests).toHaveLength(1);
    // A different source hash is a miss.
    await parsePdfWithMineru(pdf, 'a.pdf', { ...options, sourceSha256: 'b'.repeat(64) });
    expect(server.requests).toHaveLength(2);
  });

  it('is a configuration error when neither MINERU_API_URL nor MINERU_API_KEY is set', async () => {
    await expect(parsePdfWithMineru(pdf, 'a.pdf', { env: {}, sourceSha256: sha })).rejects.toBeInstanceOf(
      ConfigError,
    );
  });

  it('fails when MinerU returns empty markdown', async () => {
    server = await startFakeMineruServer({ markdown: '  \n' });
    await expect(
      parsePdfWithMineru(pdf, 'scan.pdf', { env: { MINERU_API_URL: server.url }, sourceSha256: sha }),
    ).rejects.toThrow(/^scan\.pdf: MinerU returned no text/);
  });

  it('serves a real zip the client can read (fake server sanity check)', async () => {
    server = await startFakeMineruServer({ runningPolls: 0 });
    const response = await fetch(`${server.url}/results/x.zip`);
    const archive = ZipArchive.open(Buffer.from(await response.arrayBuffer()), 'x.zip');
    expect(archive.names().sort()).toEqual(['content_list.json', 'full.md', 'layout.json']);
  });
});

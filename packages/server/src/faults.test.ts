import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { buildZip } from '@xsb/core';
import { fixtureDeck } from '@xsb/jobs/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  bodyOf,
  deckForm,
  EVALUATE_TOKEN,
  leftovers,
  logRecords,
  READ_TOKEN,
  startTestApi,
  type TestApi,
  waitForJob,
} from './testing-api';

let api: TestApi | undefined;
afterEach(async () => {
  await api?.stop();
  api = undefined;
});

/** Sends raw bytes on a socket and returns what the server answered before closing (or `waitMs`). */
function rawRequest(
  target: TestApi,
  head: string,
  body: Buffer | string,
  options: { waitMs?: number; destroyAfterSend?: boolean } = {},
): Promise<string> {
  const url = new URL(target.server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(answer);
    }, options.waitMs ?? 5000);
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      if (options.destroyAfterSend) resolve(answer);
      else reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
    socket.write(head.replace(/\n/g, '\r\n'));
    socket.write(body, () => {
      if (options.destroyAfterSend) setTimeout(() => socket.destroy(), 50);
    });
  });
}

const headFor = (extra: string) =>
  `POST /v1/evaluations HTTP/1.1\nHost: x\nAuthorization: Bearer ${EVALUATE_TOKEN}\n${extra}\n`;

async function multipartBytes(deck: Buffer, fields: Record<string, string>) {
  const request = new Request('http://x', { method: 'POST', body: deckForm(deck, fields) });
  return { bytes: Buffer.from(await request.arrayBuffer()), type: request.headers.get('content-type')! };
}

async function jobsIn(target: TestApi): Promise<unknown[]> {
  return (await bodyOf(await target.call('/v1/jobs'))).jobs;
}

describe('xsb serve under hostile uploads', () => {
  it('answers a 2 GB Content-Length with a small body at once with 413, reading nothing', async () => {
    api = await startTestApi({ workers: 0 });
    const started = Date.now();
    const answer = await rawRequest(
      api,
      headFor('Content-Type: multipart/form-data; boundary=x\nContent-Length: 2147483648\n'),
      '--x\r\nContent-Disposition: form-data; name="case"\r\n\r\npilot\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(answer).toMatch(/connection: close/i);
    expect(answer).toContain('"code":"payload_too_large"');
    expect(Date.now() - started).toBeLessThan(4000);
    expect(await leftovers(api.dataDir)).toEqual({ tmp: [], uploads: [] });
  });

  it('stops a chunked body at the limit while it streams, and removes the part received', async () => {
    api = await startTestApi({ workers: 0, bodyLimitBytes: 64 * 1024 });
    const { bytes, type } = await multipartBytes(Buffer.alloc(256 * 1024, 7), {
      case: 'pilot',
      system: 'gen',
    });
    const response = await api.call('/v1/evaluations', {
      method: 'POST',
      headers: { 'content-type': type },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 16 * 1024)
            controller.enqueue(bytes.subarray(i, i + 16 * 1024));
          controller.close();
        },
      }),
      duplex: 'half',
    });
    expect(response.status).toBe(413);
    expect((await bodyOf(response)).error.code).toBe('payload_too_large');
    expect(await leftovers(api.dataDir)).toEqual({ tmp: [], uploads: [] });
  });

  it('answers a malformed multipart body with 400 and keeps nothing', async () => {
    api = await startTestApi({ workers: 0 });
    const truncated =
      '--b\r\nContent-Disposition: form-data; name="deck"; filename="d.pptx"\r\n\r\nPK\u0003\u0004 and then the body ends';
    const answer = await rawRequest(
      api,
      headFor(
        `Content-Type: multipart/form-data; boundary=b\nContent-Length: ${Buffer.byteLength(truncated)}\n`,
      ),
      truncated,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('"code":"malformed_multipart"');
    const noBoundary = await api.call('/v1/evaluations', {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data' },
      body: 'x',
    });
    expect(noBoundary.status).toBe(415);
    expect(await leftovers(api.dataDir)).toEqual({ tmp: [], uploads: [] });
    expect(await jobsIn(api)).toEqual([]);
  });

  it('leaves nothing behind when the client hangs up mid-upload, and goes on serving', async () => {
    api = await startTestApi({ workers: 0 });
    const { bytes, type } = await multipartBytes(Buffer.alloc(2_000_000, 1), {
      case: 'pilot',
      system: 'gen',
    });
    await rawRequest(
      api,
      headFor(`Content-Type: ${type}\nContent-Length: ${bytes.length}\n`),
      bytes.subarray(0, 600_000),
      { destroyAfterSend: true, waitMs: 2000 },
    );
    await expect
      .poll(async () => leftovers(api!.dataDir), { timeout: 5000 })
      .toEqual({ tmp: [], uploads: [] });
    expect(await jobsIn(api)).toEqual([]);
    const accepted = await api.call('/v1/evaluations', {
      method: 'POST',
      body: deckForm(fixtureDeck('after'), { case: 'pilot', system: 'gen' }),
    });
    expect(accepted.status).toBe(202);
  });

  it('stops a zip bomb at the capped reader with 413', async () => {
    api = await startTestApi({ workers: 0 });
    const bomb = buildZip([
      { name: '[Content_Types].xml', data: '<Types/>' },
      { name: 'ppt/presentation.xml', data: '<p:presentation/>' },
      { name: 'ppt/media/huge.bin', data: Buffer.alloc(33 * 1024 * 1024) },
    ]);
    const response = await api.call('/v1/evaluations', {
      method: 'POST',
      body: deckForm(bomb, { case: 'pilot', system: 'gen' }),
    });
    expect(response.status).toBe(413);
    expect((await bodyOf(response)).error).toMatchObject({
      code: 'zip_too_large',
      message: expect.stringContaining('inflates past'),
    });
    expect(await leftovers(api.dataDir)).toEqual({ tmp: [], uploads: [] });
  });
});

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

describe('xsb serve under concurrent uploads', () => {
  it('accepts or refuses each of 20 concurrent uploads (429 past the limit), losing and tearing none', async () => {
    api = await startTestApi({ workers: 0, rateLimitPerMinute: 15 });
    const target = api;
    const photo = Buffer.alloc(256 * 1024, 3);
    const decks = Array.from({ length: 20 }, (_, i) =>
      buildZip([
        { name: '[Content_Types].xml', data: '<Types/>' },
        { name: 'ppt/presentation.xml', data: `<p:presentation><!-- ${i} --></p:presentation>` },
        { name: 'ppt/media/photo.bin', data: photo, store: true },
      ]),
    );
    const answers = await Promise.all(
      decks.map((deck, i) =>
        target.call('/v1/evaluations', {
          method: 'POST',
          body: deckForm(deck, { case: 'pilot', system: `gen-${i}` }),
        }),
      ),
    );
    // The bucket holds 15 and refills one every 4 s: 15 go through at once, the rest mostly wait.
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.every((status) => status === 202 || status === 429)).toBe(true);
    expect(statuses.filter((status) => status === 202).length).toBeGreaterThanOrEqual(15);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(3);
    const accepted: string[] = [];
    for (const answer of answers) if (answer.status === 202) accepted.push((await bodyOf(answer)).job_id);
    const stored = (await bodyOf(await target.call('/v1/jobs?limit=100', { token: ADMIN_TOKEN })))
      .jobs as Array<{
      id: string;
      request: { deck: { sha256: string } };
    }>;
    expect(stored.map((job) => job.id).sort()).toEqual([...accepted].sort());
    const { tmp, uploads } = await leftovers(target.dataDir);
    expect(tmp).toEqual([]);
    expect(uploads.sort()).toEqual(accepted.map((id) => `${id}.pptx`).sort());
    for (const job of stored) {
      const bytes = await readFile(join(target.dataDir, 'api/uploads', `${job.id}.pptx`));
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(job.request.deck.sha256);
    }
  });
});

describe('API tokens never leak', () => {
  it('keeps both tokens out of the request log, the job database, the artifacts and every answer', async () => {
    api = await startTestApi();
    const accepted = await bodyOf(
      await api.call('/v1/evaluations', {
        method: 'POST',
        body: deckForm(fixtureDeck('scan'), { case: 'pilot', system: 'gen' }),
      }),
    );
    const answers = [JSON.stringify(accepted)];
    expect((await waitForJob(api, accepted.job_id)).status).toBe('done');
    for (const path of ['/v1/jobs', `/v1/jobs/${accepted.job_id}`, `/v1/jobs/${accepted.job_id}/result`])
      answers.push(await (await api.call(path, { token: ADMIN_TOKEN })).text());
    answers.push(await (await api.call('/v1/jobs', { token: `${EVALUATE_TOKEN}-wrong` })).text());
    await api.server.shutdown();
    const files = await filesUnder(api.dataDir);
    expect(files.some((file) => file.endsWith('jobs.sqlite'))).toBe(true);
    expect(files.some((file) => file.endsWith('metrics.json'))).toBe(true);
    expect(logRecords(api).some((record) => record.token === 'ci' && record.msg === 'request')).toBe(true);
    for (const token of [EVALUATE_TOKEN, READ_TOKEN, ADMIN_TOKEN]) {
      for (const file of files) expect((await readFile(file)).includes(token), file).toBe(false);
      for (const line of [...api.logs, ...answers]) expect(line).not.toContain(token);
    }
  });
});

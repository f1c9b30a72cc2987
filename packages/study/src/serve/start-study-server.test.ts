import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderStudyPage } from '../create/study-page';
import type { StudyRecord } from '../schemas/study-record';
import { type StudyServer, startStudyServer } from './start-study-server';

let root: string;
let cleanup: () => Promise<void>;
let server: StudyServer;

const study: StudyRecord = {
  study: 's1',
  created_at: '2026-12-05T00:00:00.000Z',
  task: 'Rank the decks.',
  sample: { requested: 1, seed: 1, strata: 'scene' },
  cases: [
    {
      case: 'raft',
      scene: 'lecture',
      audience: 'learners',
      decks: [
        { label: 'A', slides: ['slides/1/A/1.webp'] },
        { label: 'B', slides: ['slides/1/B/1.webp'] },
      ],
    },
  ],
};

beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-study-server-'));
  await writeFile(join(root, 'study.json'), JSON.stringify(study));
  await writeFile(join(root, 'key.json'), '{"secret": "the key"}');
  await writeFile(join(root, 'index.html'), renderStudyPage(study));
  await mkdir(join(root, 'slides', '1', 'A'), { recursive: true });
  await writeFile(join(root, 'slides', '1', 'A', '1.webp'), 'RIFF....WEBP');
  server = await startStudyServer({ dir: root, port: 0 });
});
afterAll(async () => {
  await server.close();
  await cleanup();
});

/** A raw HTTP request (so the path and the Host header are sent exactly as written). */
function send(
  method: string,
  path: string,
  options: { host?: string; body?: string | Buffer } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, method, path, headers: { host: options.host ?? '127.0.0.1' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('startStudyServer', () => {
  it('serves the page and its slides, and nothing else of the folder', async () => {
    expect((await send('GET', '/')).body).toContain('<title>Deck ranking study</title>');
    expect((await send('GET', '/slides/1/A/1.webp')).status).toBe(200);
    for (const path of [
      '/key.json',
      '/study.json',
      '/slides/../key.json',
      '/slides/1/A/..%2F..%2F..%2Fkey.json',
      '/%E0%A4%A',
    ])
      expect((await send('GET', path)).body).not.toContain('the key');
    expect((await send('GET', '/key.json')).status).toBe(404);
    expect((await send('GET', '/%E0%A4%A')).status).toBe(400);
  });

  it('refuses a Host that is not loopback (DNS rebinding)', async () => {
    expect((await send('GET', '/', { host: 'evil.example' })).status).toBe(403);
  });

  it('saves checked answers atomically and refuses bad ones naming the line, writing nothing', async () => {
    const saved = await send('POST', '/annotations/ann-1.jsonl', {
      body: '{"case": "raft", "ranking": ["B", "A"], "seconds": 3.5}\n',
    });
    expect(saved).toEqual({ status: 200, body: '{"saved":1}\n' });
    expect(await readFile(join(root, 'annotations', 'ann-1.jsonl'), 'utf8')).toBe(
      '{"case":"raft","ranking":["B","A"],"seconds":3.5}\n',
    );
    const bad = await send('POST', '/annotations/ann-2.jsonl', {
      body: '{"case": "raft", "ranking": ["B", "B"], "seconds": 1}\n',
    });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error).toMatch(/ann-2\.jsonl:1: field "ranking"/);
    expect(existsSync(join(root, 'annotations', 'ann-2.jsonl'))).toBe(false);
    expect((await send('POST', '/annotations/..%2Fkey.jsonl', { body: '' })).status).toBe(404);
    expect((await send('POST', '/annotations/bad%20name.jsonl', { body: '' })).status).toBe(400);
    expect((await send('POST', '/annotations/ann-3.jsonl', { body: Buffer.from([0xff, 0xfe]) })).status).toBe(
      400,
    );
    expect(
      (await send('POST', '/annotations/ann-3.jsonl', { body: 'x'.repeat(3 * 1024 * 1024) })).status,
    ).toBe(413);
    expect((await send('GET', '/annotations/ann-1.jsonl')).status).toBe(405);
    expect((await send('DELETE', '/')).status).toBe(405);
  });
});

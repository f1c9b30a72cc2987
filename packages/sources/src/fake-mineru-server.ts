import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildZip } from '@xsb/core';

export interface FakeMineruRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: Buffer;
}

export interface FakeMineruOptions {
  /** Markdown returned for any parsed PDF. */
  markdown?: string;
  /** Bearer key the hosted routes accept; others get HTTP 401 with code A0202. */
  apiKey?: string;
  /** Hosted: polls that answer `running` after the upload before `done`. Default 2. */
  runningPolls?: number;
  /** Hosted: finish in state `failed` with this err_msg instead of `done`. */
  failTask?: string;
  /** Local `/file_parse`: answer with this HTTP status and `{ error }` instead of a result. */
  fileParseStatus?: number;
}

export interface FakeMineruServer {
  url: string;
  requests: FakeMineruRequest[];
  close(): Promise<void>;
}

interface Batch {
  uploaded: Buffer | undefined;
  fileName: string;
  dataId: string;
  polls: number;
}

/**
 * A loopback HTTP server speaking MinerU's two APIs as documented: the hosted v4 flow
 * (`POST /api/v4/file-urls/batch`, `PUT` to the returned upload URL, `GET
 * /api/v4/extract-results/batch/<id>` moving waiting-file → running → done, and a result zip with
 * `full.md`), and the open-source `mineru-api` `POST /file_parse` (multipart `files`, JSON `results`).
 */
export async function startFakeMineruServer(options: FakeMineruOptions = {}): Promise<FakeMineruServer> {
  const markdown = options.markdown ?? '# Parsed\n\nText parsed by MinerU.';
  const apiKey = options.apiKey ?? 'test-key';
  const runningPolls = options.runningPolls ?? 2;
  const requests: FakeMineruRequest[] = [];
  const batches = new Map<string, Batch>();
  let nextBatch = 1;
  let base = '';

  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const path = req.url ?? '/';
    requests.push({
      method: req.method ?? 'GET',
      path,
      authorization: req.headers.authorization,
      contentType: req.headers['content-type'],
      body,
    });
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    const envelope = (data: unknown) => json(200, { code: 0, msg: 'ok', trace_id: 'trace-1', data });
    const hosted = path.startsWith('/api/v4/');
    if (hosted && req.headers.authorization !== `Bearer ${apiKey}`) {
      json(401, { code: 'A0202', msg: 'Token error', trace_id: 'trace-1' });
      return;
    }
    if (req.method === 'POST' && path === '/api/v4/file-urls/batch') {
      const request = JSON.parse(body.toString('utf8')) as {
        files: Array<{ name: string; data_id?: string }>;
      };
      const file = request.files[0]!;
      const id = `batch-${nextBatch++}`;
      batches.set(id, { uploaded: undefined, fileName: file.name, dataId: file.data_id ?? '', polls: 0 });
      envelope({ batch_id: id, file_urls: [`${base}/upload/${id}?signature=abc`] });
      return;
    }
    const upload = /^\/upload\/([^?]+)/.exec(path);
    if (req.method === 'PUT' && upload) {
      const batch = batches.get(upload[1]!);
      if (!batch) {
        res.writeHead(404).end();
        return;
      }
      batch.uploaded = body;
      res.writeHead(200).end();
      return;
    }
    const result = /^\/api\/v4\/extract-results\/batch\/(.+)$/.exec(path);
    if (req.method === 'GET' && result) {
      const id = decodeURIComponent(result[1]!);
      const batch = batches.get(id);
      if (!batch) {
        json(200, { code: -60012, msg: 'task not found', trace_id: 'trace-1' });
        return;
      }
      const item: Record<string, unknown> = { file_name: batch.fileName, data_id: batch.dataId, err_msg: '' };
      if (!batch.uploaded) item.state = 'waiting-file';
      else if (batch.polls++ < runningPolls) {
        item.state = 'running';
        item.extract_progress = {
          extracted_pages: batch.polls,
          total_pages: runningPolls + 1,
          start_time: '2026-01-01 00:00:00',
        };
      } else if (options.failTask) {
        item.state = 'failed';
        item.err_msg = options.failTask;
      } else {
        item.state = 'done';
        item.full_zip_url = `${base}/results/${id}.zip`;
      }
      envelope({ batch_id: id, extract_result: [item] });
      return;
    }
    if (req.method === 'GET' && /^\/results\/.+\.zip$/.test(path)) {
      const zip = buildZip([
        { name: 'full.md', data: markdown },
        { name: 'layout.json', data: '{}' },
        { name: 'content_list.json', data: '[]' },
      ]);
      res.writeHead(200, { 'content-type': 'application/zip' });
      res.end(zip);
      return;
    }
    if (req.method === 'POST' && path === '/file_parse') {
      if (options.fileParseStatus) {
        json(options.fileParseStatus, { error: 'Failed to process file: simulated failure' });
        return;
      }
      const text = body.toString('latin1');
      const fileName = /name="files"; filename="([^"]+)"/.exec(text)?.[1];
      if (!fileName) {
        json(422, { detail: [{ loc: ['body', 'files'], msg: 'Field required', type: 'missing' }] });
        return;
      }
      const stem = fileName.replace(/\.[^.]*$/, '');
      json(200, { backend: 'pipeline', version: '2.5.4', results: { [stem]: { md_content: markdown } } });
      return;
    }
    json(404, { detail: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

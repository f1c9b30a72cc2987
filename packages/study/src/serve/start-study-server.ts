import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { isXsbError, readJson, UsageError, writeFileAtomic } from '@xsb/core';
import { STUDY_FILES } from '../create/study-files';
import { parseAnnotations } from '../read-annotations';
import { studyRecordSchema } from '../schemas/study-record';

const LOOPBACK = '127.0.0.1';
/** An annotator's whole answer file: a line per case, far under this. */
const MAX_BODY_BYTES = 2 * 1024 * 1024;

export interface StudyServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The request body as UTF-8 text. Past the limit the rest is read and dropped (not torn off mid-upload, which a
 * client sees as a reset instead of the 413 that says why) and the request fails.
 */
function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('error', reject);
    request.on('end', () => {
      if (size > MAX_BODY_BYTES)
        return reject(new HttpError(413, `answers larger than ${MAX_BODY_BYTES} bytes`));
      try {
        resolve(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)));
      } catch {
        reject(new HttpError(400, 'the answers are not valid UTF-8'));
      }
    });
  });
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
  });
  response.end(`${JSON.stringify(body)}\n`);
}

/** The file a GET asks for: the page or one of its slide images, nothing else. */
function servedFile(path: string): string {
  if (path === '/' || path === '/index.html') return STUDY_FILES.page;
  const slide = /^\/(slides\/\d+\/[A-Z]\/\d+\.webp)$/.exec(path);
  if (!slide) throw new HttpError(404, 'not found');
  return slide[1]!;
}

/**
 * The study page over HTTP on 127.0.0.1 (`xsb view --study STUDY`): the page, its slide images, and
 * `POST /annotations/<annotator>.jsonl`, which checks every line against the study (as `xsb study import` does)
 * and writes the annotator's file atomically, so answers are saved as the annotator goes. Nothing else is
 * served; a Host that is not a loopback name is refused (DNS rebinding).
 */
export async function startStudyServer(options: { dir: string; port: number }): Promise<StudyServer> {
  const study = await readJson(join(options.dir, STUDY_FILES.study), studyRecordSchema);
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    try {
      const host = (request.headers.host ?? '').replace(/:\d+$/, '');
      if (host !== LOOPBACK && host !== 'localhost')
        throw new HttpError(403, 'only loopback hosts are served');
      let path: string;
      try {
        path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
      } catch {
        throw new HttpError(400, 'malformed path');
      }
      const answer = /^\/annotations\/([^/]+\.jsonl)$/.exec(path);
      if (answer) {
        if (request.method !== 'POST') throw new HttpError(405, 'answers are sent with POST');
        const answers = parseAnnotations(await readBody(request), answer[1]!, study);
        const text = answers.lines.map((line) => `${JSON.stringify(line)}\n`).join('');
        await writeFileAtomic(join(options.dir, STUDY_FILES.annotations, `${answers.annotator}.jsonl`), text);
        return sendJson(response, 200, { saved: answers.lines.length });
      }
      if (request.method === 'POST') throw new HttpError(404, 'answers go to /annotations/<annotator>.jsonl');
      if (request.method !== 'GET' && request.method !== 'HEAD')
        throw new HttpError(405, 'only GET and POST');
      const file = servedFile(path);
      const body = await readFile(join(options.dir, file)).catch(() => {
        throw new HttpError(404, 'not found');
      });
      response.writeHead(200, {
        'content-type': file.endsWith('.webp') ? 'image/webp' : 'text/html; charset=utf-8',
        'cache-control': 'no-store',
      });
      response.end(request.method === 'HEAD' ? undefined : body);
    } catch (error) {
      if (error instanceof HttpError) return sendJson(response, error.status, { error: error.message });
      if (isXsbError(error)) return sendJson(response, 400, { error: error.message });
      sendJson(response, 500, { error: 'internal error' });
    }
  };
  const server = createServer((request, response) => {
    void handle(request, response);
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new UsageError(`port ${options.port} on ${LOOPBACK} is in use; pick another port`, {
              code: 'port_in_use',
            })
          : error,
      ),
    );
    server.listen(options.port, LOOPBACK, () => resolveListen());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${LOOPBACK}:${port}/`,
    port,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}

import { randomBytes } from 'node:crypto';
import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingHttpHeaders,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/**
 * A `fetch` over node:http(s) with keep-alive agents for both SDKs: Node 20's fetch costs several
 * hundred µs of CPU a call. Answers are buffered (xsb never streams); a Blob body is streamed.
 */
export const httpFetch: typeof fetch = createHttpFetch();

function createHttpFetch(): typeof fetch {
  const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 256 });
  const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 256 });
  return async (input, init = {}) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    // Bodies are not decompressed here, so ask for none.
    headers['accept-encoding'] = 'identity';
    const body = await bufferedBody(init.body, headers);
    return send(url, init, headers, body, url.protocol === 'https:' ? httpsAgent : httpAgent);
  };
}

/** The body as bytes, or a Blob to stream (a batch's; FormData of an upload becomes one). */
async function bufferedBody(
  body: RequestInit['body'],
  headers: Record<string, string>,
): Promise<string | Uint8Array | Blob | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof FormData) body = multipartBlob(body, headers);
  if (body instanceof Blob) {
    if (body.type && headers['content-type'] === undefined) headers['content-type'] = body.type;
    headers['content-length'] = String(body.size);
    return body;
  }
  if (body instanceof URLSearchParams) {
    const encoded = new Response(body);
    const type = encoded.headers.get('content-type');
    if (type && headers['content-type'] === undefined) headers['content-type'] = type;
    return new Uint8Array(await encoded.arrayBuffer());
  }
  throw new TypeError('xsb http fetch sends only string, byte, Blob or FormData bodies');
}

/** FormData as a `multipart/form-data` Blob whose file parts stay Blobs, so an upload is streamed, not copied. */
function multipartBlob(form: FormData, headers: Record<string, string>): Blob {
  const boundary = `----xsb-${randomBytes(16).toString('hex')}`;
  const quoted = (value: string) => value.replace(/\n/g, '%0A').replace(/\r/g, '%0D').replace(/"/g, '%22');
  const parts: Array<string | Blob> = [];
  for (const [name, value] of form.entries()) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"`;
    if (typeof value === 'string') {
      parts.push(`${head}\r\n\r\n`, value.replace(/\r\n|\r|\n/g, '\r\n'), '\r\n');
      continue;
    }
    head += `; filename="${quoted(value.name)}"\r\nContent-Type: ${value.type || 'application/octet-stream'}`;
    parts.push(`${head}\r\n\r\n`, value, '\r\n');
  }
  parts.push(`--${boundary}--\r\n`);
  headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
  return new Blob(parts);
}

function send(
  url: URL,
  init: RequestInit,
  headers: Record<string, string>,
  body: string | Uint8Array | Blob | undefined,
  agent: HttpAgent,
): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(
      url,
      {
        method: init.method ?? 'GET',
        headers,
        agent,
        ...(init.signal ? { signal: init.signal } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('aborted', () => reject(new Error('the connection closed before the answer was complete')));
        res.on('end', () => {
          // An answer before the whole Blob was taken (a 413 from a proxy): stop sending it, or a
          // server that stops reading would keep the Blob and the socket waiting forever.
          if (body instanceof Blob && !req.writableFinished) req.destroy();
          if (!res.complete) {
            reject(new Error('the connection closed before the answer was complete'));
            return;
          }
          const status = res.statusCode ?? 0;
          const payload = status === 204 || status === 304 ? null : Buffer.concat(chunks);
          resolve(
            new Response(payload, {
              status,
              statusText: res.statusMessage ?? '',
              headers: toHeaders(res.headers),
            }),
          );
        });
      },
    );
    req.on('error', reject);
    if (body instanceof Blob) void writeBlob(req, body);
    else req.end(body);
  });
}

/** Writes a Blob a chunk at a time, waiting for the socket to drain (an error ends it via 'error'). */
async function writeBlob(req: ClientRequest, blob: Blob): Promise<void> {
  try {
    for await (const chunk of blob.stream()) {
      if (req.destroyed) return;
      if (!req.write(chunk)) await drained(req);
    }
    req.end();
  } catch (error) {
    req.destroy(error as Error);
  }
}

/** Resolves once the request can take more, or is closed (its error reaches the caller by 'error'). */
function drained(req: ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      req.off('drain', done);
      req.off('close', done);
      resolve();
    };
    req.on('drain', done);
    req.on('close', done);
  });
}

function toHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  return headers;
}

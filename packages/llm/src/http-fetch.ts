import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/**
 * A small `fetch` over node:http(s) with keep-alive agents, handed to both SDKs. Node 20's
 * built-in fetch costs several hundred µs of CPU per call; at 16 concurrent calls that CPU lands
 * between the answers of every wave and costs throughput. Bodies are buffered (xsb never
 * streams), so the SDK parses a complete answer or gets a rejected fetch on a reset.
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

/**
 * The request body as bytes. JSON calls pass a string; a file upload (OpenAI `files.create`) passes
 * FormData, which is encoded here as `multipart/form-data` with its boundary in the content type.
 */
async function bufferedBody(
  body: RequestInit['body'],
  headers: Record<string, string>,
): Promise<string | Uint8Array | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof FormData || body instanceof Blob || body instanceof URLSearchParams) {
    const encoded = new Response(body);
    const type = encoded.headers.get('content-type');
    if (type && headers['content-type'] === undefined) headers['content-type'] = type;
    return new Uint8Array(await encoded.arrayBuffer());
  }
  throw new TypeError('xsb http fetch sends only string, byte, Blob or FormData bodies');
}

function send(
  url: URL,
  init: RequestInit,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
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
    req.end(body);
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

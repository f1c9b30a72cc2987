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
  return (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      const secure = url.protocol === 'https:';
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, name) => {
        headers[name] = value;
      });
      // Bodies are not decompressed here, so ask for none.
      headers['accept-encoding'] = 'identity';
      const body = init.body;
      if (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) {
        reject(new TypeError('xsb http fetch sends only string or byte bodies'));
        return;
      }
      const send = secure ? httpsRequest : httpRequest;
      const req = send(
        url,
        {
          method: init.method ?? 'GET',
          headers,
          agent: secure ? httpsAgent : httpAgent,
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
      req.end(body ?? undefined);
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

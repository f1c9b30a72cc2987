import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { httpFetch } from './http-fetch';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const sha = (bytes: Buffer | Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('httpFetch', () => {
  it('streams a Blob body with its Content-Length and type, through a reader slower than the sender', async () => {
    const url = await serve(async (req, res) => {
      const hash = createHash('sha256');
      let bytes = 0;
      for await (const chunk of req) {
        hash.update(chunk as Buffer);
        bytes += (chunk as Buffer).length;
        // A slow reader: the sender must wait for the socket to drain, not queue the whole body.
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          bytes,
          sha: hash.digest('hex'),
          length: req.headers['content-length'],
          type: req.headers['content-type'],
          chunked: req.headers['transfer-encoding'] ?? null,
        }),
      );
    });
    const parts = Array.from({ length: 40 }, (_, i) => `{"entry":${i},"text":"${'é'.repeat(50_000)}"}`);
    const blob = new Blob(parts, { type: 'application/json' });
    const expected = Buffer.from(parts.join(''));
    const response = await httpFetch(`${url}/upload`, { method: 'POST', body: blob });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      bytes: expected.length,
      sha: sha(expected),
      length: String(expected.length),
      type: 'application/json',
      chunked: null,
    });
  });

  it('reads the Blob only as fast as the socket takes it: a paused reader holds back the rest', async () => {
    const total = 32_000_000;
    let pulled = 0;
    /** A Blob whose stream counts what the sender has read of it. */
    class CountingBlob extends Blob {
      override stream() {
        const reader = super.stream().getReader();
        return new ReadableStream<Uint8Array>({
          async pull(controller) {
            const { done, value } = await reader.read();
            if (done) controller.close();
            else {
              pulled += value.length;
              controller.enqueue(value);
            }
          },
        });
      }
    }
    let pulledWhilePaused = -1;
    const url = await serve((req, res) => {
      req.once('data', () => {
        req.pause();
        setTimeout(() => {
          pulledWhilePaused = pulled;
          req.resume();
        }, 150);
      });
      req.on('end', () => res.end('ok'));
      req.resume();
    });
    const response = await httpFetch(url, {
      method: 'POST',
      body: new CountingBlob(Array.from({ length: total / 64_000 }, () => Buffer.alloc(64_000, 'x'))),
    });
    expect(await response.text()).toBe('ok');
    expect(pulled).toBe(total);
    // Kernel and stream buffers on loopback hold a few MB; a body copied before sending is all read.
    expect(pulledWhilePaused).toBeGreaterThan(0);
    expect(pulledWhilePaused).toBeLessThan(total / 2);
  });

  it('rejects, and does not hang, when the server closes the connection in the middle of a Blob body', async () => {
    const url = await serve((req) => {
      let seen = 0;
      req.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen > 100_000) req.socket.destroy();
      });
    });
    const blob = new Blob([Buffer.alloc(8_000_000, 'x')]);
    await expect(httpFetch(`${url}/upload`, { method: 'POST', body: blob })).rejects.toThrow();
  });

  it('stops sending a Blob when the answer comes first and the server stops reading', async () => {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const raw = createNetServer((socket) => {
      socket.once('data', () => {
        // Answers at the first bytes and stops reading; reading again later shows whether the client
        // closed the connection (fixed) or finished sending and kept it alive (the body sent on).
        socket.pause();
        socket.write('HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n');
        setTimeout(() => socket.resume(), 500);
      });
      socket.on('close', () => closed());
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', () => resolve()));
    try {
      const { port } = raw.address() as AddressInfo;
      const blob = new Blob(Array.from({ length: 500 }, () => Buffer.alloc(64_000, 'z')));
      const response = await httpFetch(`http://127.0.0.1:${port}/v1/messages/batches`, {
        method: 'POST',
        body: blob,
      });
      expect(response.status).toBe(413);
      const outcome = await Promise.race([
        serverSawClose.then(() => 'closed'),
        new Promise((resolve) => setTimeout(() => resolve('still open'), 3_000)),
      ]);
      expect(outcome).toBe('closed');
    } finally {
      raw.close();
    }
  });

  it('sends a string body as is, and FormData as multipart that a standard parser reads back exactly', async () => {
    const url = await serve(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks);
      const type = String(req.headers['content-type']);
      if (!type.startsWith('multipart/')) {
        res.end(`${type}|${raw.toString('utf8')}`);
        return;
      }
      const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
      const fields: Record<string, unknown> = { length: req.headers['content-length'], bytes: raw.length };
      for (const [name, value] of form.entries())
        fields[name] =
          typeof value === 'string'
            ? value
            : {
                name: (value as File).name,
                type: value.type,
                sha: sha(Buffer.from(await value.arrayBuffer())),
              };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(fields));
    });
    const json = await httpFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(await json.text()).toBe('application/json|{"a":1}');

    const file = Buffer.from(`{"custom_id":"a","text":"é\r\n--not a boundary"}\n`.repeat(2_000));
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('note "quoted"', 'line one\nline two');
    form.append('file', new File([file], 'xsb-b-1.jsonl', { type: 'application/jsonl' }));
    const fields = (await (await httpFetch(url, { method: 'POST', body: form })).json()) as Record<
      string,
      unknown
    >;
    expect(fields).toMatchObject({
      purpose: 'batch',
      'note "quoted"': 'line one\r\nline two',
      file: { name: 'xsb-b-1.jsonl', type: 'application/jsonl', sha: sha(file) },
    });
    expect(fields.length).toBe(String(fields.bytes));
  });
});

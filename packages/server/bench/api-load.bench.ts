/**
 * `pnpm --filter @xsb/api bench`: drives a real `startApiServer` process over loopback HTTP and prints
 * latencies. Scenarios: 200 concurrent status requests (10 rounds), 50 concurrent uploads of a 5 MB
 * deck to a second server on the same data folder whose limit is 40 requests a minute per token (each
 * accepted or refused with 429, none lost, none half-written), a client that hangs up mid-upload, a
 * malformed multipart body, and a 2 GB Content-Length with a small body. Bounded: about 2,300
 * requests, loopback only.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildZip } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { ApiDataLayout } from '@xsb/jobs';
import { fixtureDeck, writeJobsFixture } from '@xsb/jobs/testing';
import { quantileSorted } from '@xsb/stats';
import { RawBurstClient } from './raw-burst-client';

const EVALUATE = 'bench-evaluate-token-5d4c3b2a1f0e';
const UPLOADER = 'bench-uploader-token-0e1f2a3b4c5d';
const TOKENS = `bench:${EVALUATE}:evaluate+read,uploader:${UPLOADER}:evaluate+read`;
const here = fileURLToPath(new URL('.', import.meta.url));

interface Answer {
  status: number;
  ms: number;
  body: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

function send(
  url: string,
  options: { method?: string; token: string; headers?: Record<string, string>; body?: Buffer },
): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        agent,
        headers: { authorization: `Bearer ${options.token}`, ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            ms: performance.now() - started,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

async function multipart(
  deck: Buffer,
  fields: Record<string, string>,
): Promise<{ body: Buffer; type: string }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('deck', new Blob([deck]), 'deck.pptx');
  const req = new Request('http://x', { method: 'POST', body: form });
  return { body: Buffer.from(await req.arrayBuffer()), type: req.headers.get('content-type')! };
}

function percentiles(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => quantileSorted(sorted, p).toFixed(1);
  return `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${sorted.at(-1)!.toFixed(1)} ms (n=${sorted.length})`;
}

async function startServer(
  dataDir: string,
  perMinute: number,
  processes = 1,
): Promise<{ url: string; child: ChildProcess }> {
  // The server's access log (a line per request, as `xsb serve` writes it) goes to a file beside the data.
  const logFile = openSync(join(dataDir, '..', `server-${perMinute}-${processes}.log`), 'a');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(here, 'bench-server.ts'), dataDir, TOKENS, String(perMinute), String(processes)],
    {
      stdio: ['ignore', 'pipe', logFile],
    },
  );
  closeSync(logFile);
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /listening (\S+)/.exec(text);
      if (match) resolve(match[1]!);
    });
    child.once('exit', () => reject(new Error(`the bench server exited: ${text}`)));
  });
  return { url, child };
}

/** A hono server answering a fixed small JSON, nothing else: the floor of this machine. */
async function startBaseline(): Promise<{ url: string; child: ChildProcess }> {
  const code = `import { serve } from '@hono/node-server'; import { Hono } from 'hono';
const app = new Hono();
app.get('/v1/jobs/:id', (c) => c.json({ id: c.req.param('id'), status: 'done', progress: { phase: 'done', done: 1, total: 1, message: null } }));
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => console.log('listening http://127.0.0.1:' + info.port));
process.once('SIGTERM', () => server.close(() => process.exit(0)));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
    cwd: join(here, '..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /listening (\S+)/.exec(chunk.toString());
      if (match) resolve(match[1]!);
    });
    child.once('exit', () => reject(new Error('the baseline server exited')));
  });
  return { url, child };
}

async function waitDone(url: string, ids: string[]): Promise<void> {
  for (let tries = 0; ; tries++) {
    if (tries > 600) throw new Error('the seeded jobs did not finish within 2 minutes');
    const page = JSON.parse((await send(`${url}/v1/jobs?status=done&limit=100`, { token: EVALUATE })).body);
    if (ids.every((id) => page.jobs.some((job: { id: string }) => job.id === id))) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const { dir, cleanup } = await makeTempDir('xsb-api-bench-');
const dataDir = join(dir, 'data');
await writeJobsFixture(dataDir, 24);
const { url, child } = await startServer(dataDir, 1_000_000);
const limited = await startServer(dataDir, 40);
const layout = new ApiDataLayout(dataDir);
// A bench stops by itself: whatever hangs, after five minutes the servers are killed and it fails.
const deadline = setTimeout(() => {
  console.error('bench: gave up after 5 minutes');
  child.kill('SIGKILL');
  limited.child.kill('SIGKILL');
  process.exit(1);
}, 300_000);
try {
  console.log(
    `xsb API load bench — ${cpus().length} cores, Node ${process.version}, SQLite job store, lexical judge, server in its own process`,
  );

  // Seed 20 finished jobs so status reads hit real rows.
  const seeded: string[] = [];
  for (let i = 0; i < 20; i++) {
    const { body, type } = await multipart(fixtureDeck(`seed${i}`), {
      case: 'pilot',
      system: `seed-${i}`,
      audiences: 'learners',
    });
    const answer = await send(`${url}/v1/evaluations`, {
      method: 'POST',
      token: EVALUATE,
      headers: { 'content-type': type },
      body,
    });
    seeded.push(JSON.parse(answer.body).job_id);
  }
  await waitDone(url, seeded);

  // 1. 200 concurrent status requests: 2 warm-up rounds (new connections, JIT), then 10 measured rounds,
  // once through node:http (what a Node client sees from the same 2 cores) and once through raw
  // keep-alive sockets (the server's own latency); the same bursts against a trivial hono server show
  // what this machine gives at this moment.
  const jobPath = (i: number) => `/v1/jobs/${seeded[i % seeded.length]}`;
  const httpBurst = (base: string) => () =>
    Promise.all(Array.from({ length: 200 }, (_, i) => send(`${base}${jobPath(i)}`, { token: EVALUATE })));
  const measure = async (run: () => Promise<Array<{ status: number; ms: number }>>) => {
    const warmUp = [...(await run()), ...(await run())];
    const latencies: number[] = [];
    let errors = warmUp.filter((answer) => answer.status !== 200).length;
    for (let round = 0; round < 10; round++)
      for (const answer of await run()) {
        if (answer.status === 200) latencies.push(answer.ms);
        else errors += 1;
      }
    return { latencies, errors };
  };
  const burstsOf = async (base: string) => {
    const viaHttp = await measure(httpBurst(base));
    const raw = await RawBurstClient.open(base, 200);
    try {
      return { viaHttp, viaRaw: await measure(() => raw.burst(jobPath, EVALUATE)) };
    } finally {
      raw.close();
    }
  };
  const baseline = await startBaseline();
  try {
    const floor = await burstsOf(baseline.url);
    console.log(
      `baseline, a trivial hono server, 200 concurrent x 10: node:http client ${percentiles(floor.viaHttp.latencies)}; raw sockets ${percentiles(floor.viaRaw.latencies)}`,
    );
  } finally {
    baseline.child.kill('SIGTERM');
  }
  const ours = await burstsOf(url);
  console.log(
    `200 concurrent GET /v1/jobs/{id} x 10 rounds (after 2 warm-up rounds), node:http client: ${percentiles(ours.viaHttp.latencies)}; non-200: ${ours.viaHttp.errors}`,
  );
  console.log(
    `200 concurrent GET /v1/jobs/{id} x 10 rounds (after 2 warm-up rounds), raw sockets: ${percentiles(ours.viaRaw.latencies)}; non-200: ${ours.viaRaw.errors}`,
  );
  // The same bursts against `xsb serve --processes 2` (Node cluster, one process per core).
  const clustered = await startServer(dataDir, 1_000_000, 2);
  try {
    const two = await burstsOf(clustered.url);
    console.log(
      `the same against 2 server processes (--processes 2): node:http client ${percentiles(two.viaHttp.latencies)}, non-200: ${two.viaHttp.errors}; raw sockets ${percentiles(two.viaRaw.latencies)}, non-200: ${two.viaRaw.errors}`,
    );
  } finally {
    clustered.child.kill('SIGTERM');
    await new Promise((resolve) => clustered.child.once('exit', resolve));
  }

  // 2. 50 concurrent uploads of a 5 MB deck to the server limited to 40 requests a minute per token.
  const media = randomBytes(5 * 1024 * 1024);
  const bodies = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      multipart(
        // A stored (incompressible) 5 MB part, like a deck of photos; the slide text makes each digest its own.
        buildZip([
          { name: '[Content_Types].xml', data: '<Types/>' },
          { name: 'ppt/presentation.xml', data: `<p:presentation><!-- deck ${i} --></p:presentation>` },
          { name: 'ppt/media/photo.bin', data: media, store: true },
        ]),
        { case: 'pilot', system: `upload-${i}`, audiences: 'learners' },
      ),
    ),
  );
  const uploadStarted = performance.now();
  const uploads = await Promise.all(
    bodies.map(({ body, type }) =>
      send(`${limited.url}/v1/evaluations`, {
        method: 'POST',
        token: UPLOADER,
        headers: { 'content-type': type },
        body,
      }),
    ),
  );
  const uploadMs = performance.now() - uploadStarted;
  const byStatus = new Map<number, number>();
  for (const answer of uploads) byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1);
  const accepted = uploads
    .filter((answer) => answer.status === 202)
    .map((answer) => JSON.parse(answer.body).job_id as string);
  const bytes = bodies.reduce((sum, b) => sum + b.body.length, 0);
  console.log(
    `50 concurrent 5 MB uploads: ${[...byStatus].map(([status, n]) => `${n}x ${status}`).join(', ')} in ${uploadMs.toFixed(0)} ms (${(bytes / 1e6 / (uploadMs / 1000)).toFixed(1)} MB/s); latency ${percentiles(uploads.map((u) => u.ms))}`,
  );
  const listed = JSON.parse((await send(`${url}/v1/jobs?limit=100`, { token: EVALUATE })).body)
    .jobs as Array<{ id: string; submitted_by: string; request: { deck: { sha256: string } } }>;
  const stored = listed.filter((job) => job.submitted_by === 'uploader');
  const lost = accepted.filter((id) => !stored.some((job) => job.id === id));
  // Each accepted deck is whole where it lies: still staged, or already placed in the deck tree by a worker.
  let halfWritten = 0;
  for (const job of stored) {
    const system = (job.request as unknown as { system: string }).system;
    const candidates = [
      layout.upload(job.id, 'pptx'),
      join(dataDir, 'runs/api/decks', system, 'audience_agnostic/all/pilot/deck.pptx'),
    ];
    let bytes: Buffer | undefined;
    for (const file of candidates) {
      bytes = await readFile(file).catch(() => undefined);
      if (bytes) break;
    }
    if (!bytes || createHash('sha256').update(bytes).digest('hex') !== job.request.deck.sha256)
      halfWritten += 1;
  }
  const tmpAfter = (await readdir(layout.tmpDir(), { recursive: true })).filter((f) => f.endsWith('.part'));
  console.log(
    `  accepted ${accepted.length}, stored ${stored.length}, lost ${lost.length}, missing or bad digests ${halfWritten}, temp parts left ${tmpAfter.length}`,
  );

  // 3. A client that hangs up after 1 MB of a 5 MB upload.
  const { body: hangBody, type: hangType } = bodies[0]!;
  const target = new URL(url);
  const hangStarted = performance.now();
  await new Promise<void>((resolve) => {
    const socket = connect(Number(target.port), target.hostname, () => {
      socket.write(
        `POST /v1/evaluations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${EVALUATE}\r\nContent-Type: ${hangType}\r\nContent-Length: ${hangBody.length}\r\n\r\n`,
      );
      socket.write(hangBody.subarray(0, 1_000_000), () => {
        socket.destroy();
        resolve();
      });
    });
  });
  let parts = 1;
  while (parts > 0 && performance.now() - hangStarted < 10_000) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    parts = (await readdir(layout.tmpDir(), { recursive: true })).filter((f) => f.endsWith('.part')).length;
  }
  console.log(
    `hang-up after 1 MB of 5 MB: temp parts left ${parts}, clean after ${(performance.now() - hangStarted).toFixed(0)} ms`,
  );

  // 4. A malformed multipart body, 5. a 2 GB Content-Length with a small body.
  const raw = (head: string, body: string) =>
    new Promise<{ status: string; ms: number }>((resolve) => {
      const started = performance.now();
      const socket = connect(Number(target.port), target.hostname, () => socket.write(head + body));
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString();
        if (text.includes('\r\n\r\n')) {
          resolve({ status: text.split(' ')[1] ?? '?', ms: performance.now() - started });
          socket.destroy();
        }
      });
    });
  const malformedBody =
    '--b\r\nContent-Disposition: form-data; name="deck"; filename="d.pptx"\r\n\r\nPK truncated';
  const malformed = await raw(
    `POST /v1/evaluations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${EVALUATE}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: ${malformedBody.length}\r\n\r\n`,
    malformedBody,
  );
  console.log(`malformed multipart: ${malformed.status} in ${malformed.ms.toFixed(1)} ms`);
  const huge = await raw(
    `POST /v1/evaluations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${EVALUATE}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 2147483648\r\n\r\n`,
    '--b\r\n',
  );
  console.log(`2 GB Content-Length, small body: ${huge.status} in ${huge.ms.toFixed(1)} ms`);
} finally {
  for (const server of [child, limited.child]) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    const kill = setTimeout(() => server.kill('SIGKILL'), 40_000);
    await exited;
    clearTimeout(kill);
  }
  clearTimeout(deadline);
  agent.destroy();
  await cleanup();
}

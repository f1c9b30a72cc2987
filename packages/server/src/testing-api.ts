import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { ApiDataLayout, type StoredJob } from '@xsb/jobs';
import { writeJobsFixture } from '@xsb/jobs/testing';
import { parseTokenList } from './api-tokens';
import { type ApiServer, type StartApiServerOptions, startApiServer } from './start-api-server';

export const EVALUATE_TOKEN = 'tok-evaluate-7f3a9c2e5b1d8f40';
export const READ_TOKEN = 'tok-read-only-2c9e4a7b1f6d3e58';
export const ADMIN_TOKEN = 'tok-admin-all-jobs-5d1c8e3a9b7f';
export const POSTER_TOKEN = 'tok-poster-other-3a7e9c1d5b2f';
export const TEST_TOKENS = `ci:${EVALUATE_TOKEN}:evaluate+read,dash:${READ_TOKEN}:read,root:${ADMIN_TOKEN}:admin,poster:${POSTER_TOKEN}:evaluate+read`;

/** The server's log lines, parsed (each is one JSON object). */
// biome-ignore lint/suspicious/noExplicitAny: tests read log lines as plain JSON values
export function logRecords(api: { logs: string[] }): any[] {
  return api.logs.map((line) => JSON.parse(line));
}

export interface TestApi {
  server: ApiServer;
  dataDir: string;
  dir: string;
  logs: string[];
  /** `fetch` against the server with the evaluate token (or `token`, or none with `null`). */
  call(path: string, init?: RequestInit & { token?: string | null }): Promise<Response>;
  stop(): Promise<void>;
}

/** A data folder with the fixture case and a started server on a free port; `stop` shuts it and removes all. */
export async function startTestApi(options: Partial<StartApiServerOptions> = {}): Promise<TestApi> {
  const { dir, cleanup } = await makeTempDir('xsb-api-');
  const dataDir = join(dir, 'data');
  await writeJobsFixture(dataDir, 14);
  const logs: string[] = [];
  const server = await startApiServer({
    dataDir,
    port: 0,
    tokens: parseTokenList(TEST_TOKENS),
    env: {},
    eventsIntervalMs: 20,
    log: (line) => logs.push(line),
    ...options,
  });
  return {
    server,
    dataDir,
    dir,
    logs,
    call(path, init = {}) {
      const { token = EVALUATE_TOKEN, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (token) headers.set('authorization', `Bearer ${token}`);
      return fetch(`${server.url}${path}`, { ...rest, headers });
    },
    async stop() {
      await server.shutdown();
      await cleanup();
    },
  };
}

/** A multipart body with the deck and the text fields (arrays repeat the field). */
export function deckForm(
  deck: Buffer,
  fields: Record<string, string | string[]>,
  filename = 'deck.pptx',
): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields))
    for (const item of Array.isArray(value) ? value : [value]) form.append(name, item);
  form.append('deck', new Blob([deck]), filename);
  return form;
}

/** Polls a job until it is done, failed or canceled. */
export async function waitForJob(api: TestApi, id: string, timeoutMs = 20_000): Promise<StoredJob> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = (await (await api.call(`/v1/jobs/${id}`)).json()) as StoredJob;
    if (['done', 'failed', 'canceled'].includes(job.status)) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} is still ${job.status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Files left in the upload temp folders and the uploads folder (what a refused upload must not leave). */
export async function leftovers(dataDir: string): Promise<{ tmp: string[]; uploads: string[] }> {
  const layout = new ApiDataLayout(dataDir);
  const list = async (dir: string): Promise<string[]> => {
    const out: string[] = [];
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (entry.isDirectory())
        out.push(...(await list(join(dir, entry.name))).map((f) => `${entry.name}/${f}`));
      else out.push(entry.name);
    }
    return out;
  };
  return { tmp: await list(layout.tmpDir()), uploads: await list(layout.uploadsDir()) };
}

/** A response body as loose JSON, for assertions. */
// biome-ignore lint/suspicious/noExplicitAny: tests read response bodies as plain JSON values
export async function bodyOf(response: Response): Promise<any> {
  return response.json();
}

import { execFile } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { makeTempDir } from '@xsb/core/testing';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CompletionRequest } from './completion-types';
import { createLlmClient } from './create-llm-client';
import { DiskCache } from './disk-cache';

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL('..', import.meta.url));

let server: FakeLlmServer;
let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  server = await startFakeLlmServer({ handler: (r) => ({ text: `answer to ${r.text}` }) });
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-llm-cache-'));
  server.setHandler((r) => ({ text: `answer to ${r.text}` }));
});
afterEach(async () => {
  await cleanup();
});

const questions = (n: number, prefix = 'q'): CompletionRequest[] =>
  Array.from({ length: n }, (_, i) => ({
    system: 'sys',
    messages: [{ role: 'user', content: `${prefix}${i}` }],
  }));

function client(spec: string, options: { noCache?: boolean; refresh?: boolean } = {}) {
  return createLlmClient(spec, { env: fakeProviderEnv(server), cacheDir: dir, baseBackoffMs: 5, ...options });
}

describe('disk cache', () => {
  it.each(['anthropic:claude-test', 'openai:gpt-test'])(
    '%s: the same requests twice send 0 HTTP requests the second time',
    async (spec) => {
      const before = server.requestCount;
      const first = await Promise.all(questions(10).map((q) => client(spec).complete(q)));
      expect(server.requestCount - before).toBe(10);
      expect(first.every((r) => !r.fromCache)).toBe(true);
      const middle = server.requestCount;
      const second = await Promise.all(questions(10).map((q) => client(spec).complete(q)));
      expect(server.requestCount - middle).toBe(0);
      expect(second.every((r) => r.fromCache)).toBe(true);
      expect(second.map((r) => r.text)).toEqual(first.map((r) => r.text));
      expect(second[3]?.usage).toEqual(first[3]?.usage);
    },
  );

  it('--no-cache neither reads nor writes; --refresh calls again and rewrites', async () => {
    const q = questions(1)[0]!;
    const before = server.requestCount;
    await client('openai:gpt-test', { noCache: true }).complete(q);
    expect((await new DiskCache(dir).stats()).entries).toBe(0);
    await client('openai:gpt-test').complete(q);
    server.setHandler(() => ({ text: 'newer answer' }));
    const refreshed = await client('openai:gpt-test', { refresh: true }).complete(q);
    expect(refreshed.fromCache).toBe(false);
    expect(refreshed.text).toBe('newer answer');
    const cached = await client('openai:gpt-test').complete(q);
    expect(cached.fromCache).toBe(true);
    expect(cached.text).toBe('newer answer');
    expect(server.requestCount - before).toBe(3);
  });

  it('never caches an error response', async () => {
    server.setHandler(() => ({ fault: { kind: 'status', status: 400, message: 'bad' } }));
    const q = questions(1)[0]!;
    await expect(client('anthropic:claude-test').complete(q)).rejects.toThrow('bad');
    expect((await new DiskCache(dir).stats()).entries).toBe(0);
    server.setHandler(() => ({ text: 'good' }));
    const before = server.requestCount;
    expect((await client('anthropic:claude-test').complete(q)).text).toBe('good');
    expect(server.requestCount - before).toBe(1);
  });

  it('keys on the model and the base URL, so providers and models never share answers', async () => {
    const q = questions(1)[0]!;
    await client('openai:gpt-test').complete(q);
    const before = server.requestCount;
    await client('openai:gpt-other').complete(q);
    await client('anthropic:gpt-test').complete(q);
    expect(server.requestCount - before).toBe(2);
  });

  it('treats a corrupt entry as a miss and replaces it', async () => {
    const q = questions(1)[0]!;
    await client('openai:gpt-test').complete(q);
    const cache = new DiskCache(dir);
    const [shard] = await readdir(cache.root);
    const [name] = await readdir(join(cache.root, shard!));
    const file = join(cache.root, shard!, name!);
    await writeFile(file, '{"v":1,"key":');
    const before = server.requestCount;
    const again = await client('openai:gpt-test').complete(q);
    expect(again.fromCache).toBe(false);
    expect(server.requestCount - before).toBe(1);
    expect(JSON.parse(await readFile(file, 'utf8')).text).toBe(again.text);
  });

  it('stats counts entries and clear removes them', async () => {
    await Promise.all(questions(5).map((q) => client('openai:gpt-test').complete(q)));
    const cache = new DiskCache(dir);
    expect((await cache.stats()).entries).toBe(5);
    expect(await cache.clear()).toBe(5);
    expect((await cache.stats()).entries).toBe(0);
  });

  it('two processes filling one cache folder at once lose and corrupt nothing', async () => {
    // Overlapping ranges: 0-79 and 40-119, so 40 keys may be written by both processes. No answer
    // leaves the server until both processes have calls in flight: before that barrier opens, the
    // first holds only questions below 40 (8 at a time) and the second only 40 and up, so the two
    // fill the folder at the same time however their start-up times differ.
    let openBarrier: () => void = () => undefined;
    const barrier = new Promise<void>((resolve) => {
      openBarrier = resolve;
    });
    const seen = { low: false, high: false };
    server.setHandler(async (r) => {
      const n = Number(r.text.replace('question ', ''));
      if (n < 40) seen.low = true;
      else seen.high = true;
      if (seen.low && seen.high) openBarrier();
      await barrier;
      await new Promise((resolve) => setTimeout(resolve, 2));
      return { text: `answer to ${r.text}` };
    });
    const child = (from: number) =>
      run(
        process.execPath,
        ['--import', 'tsx', 'fixtures/fill-cache.ts', server.url, dir, String(from), '80'],
        {
          cwd: packageDir,
        },
      );
    await Promise.all([child(0), child(40)]);
    const cache = new DiskCache(dir);
    expect((await cache.stats()).entries).toBe(120);
    for (const shard of await readdir(cache.root)) {
      const names = await readdir(join(cache.root, shard));
      expect(names.filter((name) => name.endsWith('.tmp'))).toEqual([]);
      for (const name of names) {
        const entry = JSON.parse(await readFile(join(cache.root, shard, name), 'utf8'));
        expect(entry.text).toMatch(/^answer to question \d+$/);
      }
    }
    const before = server.requestCount;
    const llm = createLlmClient('openai:gpt-test', { env: fakeProviderEnv(server), cacheDir: dir });
    const all = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        llm.complete({ messages: [{ role: 'user', content: `question ${i}` }] }),
      ),
    );
    expect(all.every((r, i) => r.fromCache && r.text === `answer to question ${i}`)).toBe(true);
    expect(server.requestCount - before).toBe(0);
  });
});

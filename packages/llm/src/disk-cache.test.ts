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
    // Each child asks 60 shared questions (the same keys, in the same order as the other child, so
    // both write most of them at about the same moment) interleaved with 60 of its own. No answer
    // leaves the server until 16 calls are waiting: a child has at most 8 in flight, so both are
    // running however their start-up times differ.
    const PAIRS = 60;
    let held = 0;
    let openBarrier: () => void = () => undefined;
    const barrier = new Promise<void>((resolve) => {
      openBarrier = resolve;
    });
    server.setHandler(async (r) => {
      held += 1;
      if (held >= 16) openBarrier();
      await barrier;
      await new Promise((resolve) => setTimeout(resolve, 2));
      return { text: `answer to ${r.text}` };
    });
    const child = (label: string) =>
      run(
        process.execPath,
        ['--import', 'tsx', 'fixtures/fill-cache.ts', server.url, dir, label, String(PAIRS)],
        { cwd: packageDir },
      );
    const outputs = await Promise.all([child('a'), child('b')]);
    const requested = outputs.map(({ stdout }) => Number(stdout.trim()));
    // Every own question went out, and shared ones at least once between the two.
    expect(requested.every((n) => n >= PAIRS)).toBe(true);
    expect(requested[0]! + requested[1]!).toBeGreaterThanOrEqual(3 * PAIRS);

    const asked = [
      ...Array.from({ length: PAIRS }, (_, i) => `question ${i}`),
      ...['a', 'b'].flatMap((label) => Array.from({ length: PAIRS }, (_, i) => `${label} question ${i}`)),
    ];
    const cache = new DiskCache(dir);
    expect((await cache.stats()).entries).toBe(asked.length);
    for (const shard of await readdir(cache.root)) {
      const names = await readdir(join(cache.root, shard));
      expect(names.filter((name) => name.endsWith('.tmp'))).toEqual([]);
      for (const name of names) {
        const entry = JSON.parse(await readFile(join(cache.root, shard, name), 'utf8'));
        expect(`${entry.key}.json`).toBe(name);
        expect(entry.text).toMatch(/^answer to (a |b )?question \d+$/);
      }
    }
    const before = server.requestCount;
    const llm = createLlmClient('openai:gpt-test', { env: fakeProviderEnv(server), cacheDir: dir });
    const all = await Promise.all(
      asked.map((content) => llm.complete({ messages: [{ role: 'user', content }] })),
    );
    expect(all.every((r, i) => r.fromCache && r.text === `answer to ${asked[i]}`)).toBe(true);
    expect(server.requestCount - before).toBe(0);
  });
});

import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLlmClient } from './create-llm-client';

const KEYS = { anthropic: 'sk-ant-SECRET-5f1e2d3c4b5a', openai: 'sk-proj-SECRET-0a9b8c7d6e5f' };

let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlmServer();
});
afterAll(async () => {
  await server.close();
});

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if ((await stat(path)).isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out;
}

/** Whatever the code under test writes to the console, captured instead of printed. */
function captureConsole(): { logged: string[]; restore: () => void } {
  const logged: string[] = [];
  const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) =>
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      logged.push(args.map(String).join(' '));
    }),
  );
  return {
    logged,
    restore: () => {
      for (const spy of spies) spy.mockRestore();
    },
  };
}

/** Everything a caller could print or store of an error. */
function describeError(error: Error): string[] {
  return [
    error.message,
    String(error.stack),
    JSON.stringify((error as { details?: unknown }).details),
    String(error.cause),
  ];
}

describe('API keys never leak', () => {
  it('keeps keys out of the ledger, cache files, logs and error messages, even when a server echoes them', async () => {
    const { dir, cleanup } = await makeTempDir('xsb-llm-secrets-');
    const { logged, restore } = captureConsole();
    try {
      const env = {
        ...fakeProviderEnv(server),
        ANTHROPIC_API_KEY: KEYS.anthropic,
        OPENAI_API_KEY: KEYS.openai,
      };
      const options = {
        env,
        cacheDir: join(dir, 'cache'),
        ledgerFile: join(dir, 'usage.jsonl'),
        baseBackoffMs: 1,
      };
      const messages: string[] = [];
      let step = 0;
      server.setHandler((request) => {
        step += 1;
        const presented = String(request.headers['x-api-key'] ?? request.headers.authorization ?? '');
        // A hostile or careless server quotes the credential back in its error text.
        if (step % 3 === 1)
          return { fault: { kind: 'status', status: 500, message: `boom for ${presented}` } };
        if (step % 3 === 2)
          return { fault: { kind: 'status', status: 401, message: `invalid key ${presented}` } };
        return { text: 'fine' };
      });
      for (const spec of ['anthropic:claude-test', 'openai:gpt-test']) {
        const llm = createLlmClient(spec, options);
        await llm
          .complete({ messages: [{ role: 'user', content: 'q' }] })
          .catch((e: Error) => messages.push(...describeError(e)));
        server.setHandler(() => ({ text: 'fine' }));
        await createLlmClient(spec, options).complete({ messages: [{ role: 'user', content: 'q2' }] });
        step = 0;
        server.setHandler((request) => {
          step += 1;
          const presented = String(request.headers['x-api-key'] ?? request.headers.authorization ?? '');
          return { fault: { kind: 'status', status: 400, message: `bad request from ${presented}` } };
        });
        await createLlmClient(spec, options)
          .complete({ messages: [{ role: 'user', content: 'q3' }] })
          .catch((e: Error) => messages.push(...describeError(e)));
      }
      expect(messages.length).toBeGreaterThanOrEqual(4);
      expect(messages.join('\n')).toContain('[redacted]');
      const files = await filesUnder(dir);
      expect(files.some((f) => f.endsWith('usage.jsonl'))).toBe(true);
      expect(files.filter((f) => f.endsWith('.json')).length).toBeGreaterThanOrEqual(2);
      const haystack = [
        ...messages,
        ...logged,
        ...(await Promise.all(files.map((f) => readFile(f, 'utf8')))),
      ].join('\n');
      for (const key of Object.values(KEYS)) {
        expect(haystack).not.toContain(key);
        expect(haystack).not.toContain(key.slice(-12));
      }
    } finally {
      restore();
      await cleanup();
    }
  });

  it('keeps keys out of batch uploads, state files, the ledger and errors, even when the batch API echoes them', async () => {
    const { dir, cleanup } = await makeTempDir('xsb-llm-secrets-batch-');
    const { logged, restore } = captureConsole();
    const filesBefore = server.files.length;
    try {
      const env = {
        ...fakeProviderEnv(server),
        ANTHROPIC_API_KEY: KEYS.anthropic,
        OPENAI_API_KEY: KEYS.openai,
      };
      const messages: string[] = [];
      server.setBatchPlan(() => ({}));
      for (const [spec, key] of [
        ['anthropic:claude-test', KEYS.anthropic],
        ['openai:gpt-test', KEYS.openai],
      ] as const) {
        const options = {
          env,
          cacheDir: join(dir, 'cache'),
          ledgerFile: join(dir, 'usage.jsonl'),
          baseBackoffMs: 1,
          limits: { maxAttempts: 2 },
          batch: { stateDir: dir, idleMs: 10, pollIntervalMs: 5, maxPollIntervalMs: 10 },
        };
        // A refused submission that quotes the key, then entries that fail quoting it.
        if (spec.startsWith('openai'))
          server.queueBatchFault('upload', { status: 400, message: `bad file from ${key}` });
        else server.queueBatchFault('create', { status: 400, message: `bad batch from ${key}` });
        await createLlmClient(spec, options)
          .complete({ messages: [{ role: 'user', content: 'refused' }] })
          .catch((e: Error) => messages.push(...describeError(e)));
        server.setHandler((request) =>
          request.text === 'fails'
            ? { fault: { kind: 'status', status: 400, message: `invalid request for ${key}` } }
            : { text: 'fine' },
        );
        const client = createLlmClient(spec, options);
        await Promise.all([
          client
            .complete({ messages: [{ role: 'user', content: 'fails' }] })
            .catch((e: Error) => messages.push(...describeError(e))),
          client.complete({ messages: [{ role: 'user', content: 'works' }] }),
        ]);
        server.setHandler(() => ({ text: 'fine' }));
      }
      expect(messages.length).toBeGreaterThanOrEqual(4);
      expect(messages.join('\n')).toContain('[redacted]');
      const files = await filesUnder(dir);
      expect(files.filter((f) => f.includes(`${join('batches', '')}`)).length).toBeGreaterThanOrEqual(4);
      // What the client uploaded (not the output files the server itself writes).
      const uploads = server.files.slice(filesBefore).filter((file) => file.purpose === 'batch');
      expect(uploads.length).toBeGreaterThanOrEqual(1);
      const haystack = [
        ...messages,
        ...logged,
        ...(await Promise.all(files.map((f) => readFile(f, 'utf8')))),
        ...uploads.map((file) => file.bytes.toString('utf8')),
      ].join('\n');
      expect(haystack).toContain('"batch":true');
      for (const key of Object.values(KEYS)) {
        expect(haystack).not.toContain(key);
        expect(haystack).not.toContain(key.slice(-12));
      }
    } finally {
      restore();
      await cleanup();
    }
  });
});

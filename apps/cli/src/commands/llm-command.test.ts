import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { type FakeLlmServer, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runXsb, type XsbArgs } from '../testing-cli';

const KEY = 'sk-cli-SECRET-7c6b5a4f3e2d';
let server: FakeLlmServer;
let root: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  server = await startFakeLlmServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-llm-cli-'));
  server.setHandler((r) => ({ text: `hello from ${r.model}: ${r.text}` }));
});
afterEach(() => cleanup());

const run = (args: XsbArgs, env: Record<string, string> = {}) =>
  runXsb(args, {
    cwd: root,
    env: {
      XSB_CACHE_DIR: join(root, 'cache'),
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: `${server.url}/v1`,
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: server.url,
      ...env,
    },
  });

describe('xsb llm complete', () => {
  it('prints the answer, then serves the same call from the cache with no HTTP request', async () => {
    const ping = [
      'llm',
      'complete',
      '--judge',
      'openai:gpt-test',
      '--prompt',
      'ping',
      '--system',
      'be brief',
      '--ledger',
      'calls.jsonl',
      '--json',
    ];
    const first = await run(ping);
    expect(first.code).toBe(0);
    const answer = JSON.parse(first.stdout);
    expect(answer).toMatchObject({
      text: 'hello from gpt-test: ping',
      retries: 0,
      fromCache: false,
      model: 'gpt-test',
    });
    expect(answer.usage).toEqual({
      inputTokens: expect.any(Number),
      outputTokens: expect.any(Number),
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    expect(server.requests.at(-1)?.system).toBe('be brief');

    const before = server.requestCount;
    const second = await run(ping);
    expect(JSON.parse(second.stdout).fromCache).toBe(true);
    expect(server.requestCount).toBe(before);

    const plain = await run(
      'llm complete --judge anthropic:claude-test --prompt pong --no-cache --ledger calls.jsonl',
    );
    expect(plain.stdout).toBe('hello from claude-test: pong\n');
    const stats = await run(['llm', 'cache', 'stats', '--json']);
    expect(JSON.parse(stats.stdout).entries).toBe(1);

    const usage = await run(['llm', 'usage', '--ledger', 'calls.jsonl', '--json']);
    const summary = JSON.parse(usage.stdout);
    expect(summary.totals.calls).toBe(3);
    expect(summary.totals.cacheHits).toBe(1);

    const cleared = await run(['llm', 'cache', 'clear']);
    expect(cleared.stdout).toContain('removed 1 answer');
    expect(JSON.parse((await run(['llm', 'cache', 'stats', '--json'])).stdout).entries).toBe(0);
  });

  it('writes a usage ledger only where --ledger says', async () => {
    const result = await run(['llm', 'complete', '--judge', 'openai:gpt-test', '--prompt', 'no ledger']);
    expect(result.code).toBe(0);
    // no run ledger, no data/ folder in the working folder
    expect(existsSync(join(root, 'data'))).toBe(false);
    const missing = await run(['llm', 'usage']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /^ERROR: run "default": usage ledger .*usage_ledger\.jsonl does not exist/,
    );
    const named = await run(['llm', 'usage', '--ledger', 'nope.jsonl']);
    expect(named.code).toBe(2);
    expect(named.stderr).toContain(`usage ledger ${join(root, 'nope.jsonl')} does not exist`);
  });

  it('--refresh calls again and rewrites the cached answer', async () => {
    const ask = (...flags: string[]) =>
      run(['llm', 'complete', '--judge', 'openai:gpt-test', '--prompt', 'again', '--json', ...flags]);
    expect(JSON.parse((await ask()).stdout).fromCache).toBe(false);
    server.setHandler(() => ({ text: 'newer' }));
    const before = server.requestCount;
    const refreshed = JSON.parse((await ask('--refresh')).stdout);
    expect(refreshed).toMatchObject({ text: 'newer', fromCache: false });
    expect(server.requestCount - before).toBe(1);
    expect(JSON.parse((await ask()).stdout)).toMatchObject({ text: 'newer', fromCache: true });
    expect(server.requestCount - before).toBe(1);
  });

  it('a missing key is exit 2 naming the variable, before any request', async () => {
    const before = server.requestCount;
    const result = await run(['llm', 'complete', '--judge', 'anthropic:claude-test', '--prompt', 'x'], {
      ANTHROPIC_API_KEY: '',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ANTHROPIC_API_KEY');
    expect(server.requestCount).toBe(before);
  });

  it('a rejected key is exit 2 naming provider and variable, and the key is printed nowhere', async () => {
    server.setHandler(() => ({ fault: { kind: 'status', status: 401, message: `bad key ${KEY}` } }));
    const result = await run([
      'llm',
      'complete',
      '--judge',
      'openai:gpt-test',
      '--prompt',
      'x',
      '--ledger',
      'calls.jsonl',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/ERROR: openai rejected the API key .*OPENAI_API_KEY/);
    const ledger = await readFile(join(root, 'calls.jsonl'), 'utf8');
    expect(ledger).toContain('"error":"auth"');
    expect(`${result.stdout}${result.stderr}${ledger}`).not.toContain(KEY);
  });

  it('refuses the offline judge with exit 2', async () => {
    const result = await run(['llm', 'complete', '--judge', 'lexical', '--prompt', 'x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('offline judge');
  });

  it('sends --max-tokens and --temperature, and refuses a zero token budget with exit 2', async () => {
    const result = await run(
      'llm complete --judge anthropic:claude-test --prompt p --max-tokens 7 --temperature 0.5',
    );
    expect(result.code).toBe(0);
    expect(server.requests.at(-1)?.body).toMatchObject({ max_tokens: 7, temperature: 0.5 });
    const before = server.requestCount;
    const zero = await run('llm complete --judge openai:gpt-test --prompt p --max-tokens 0');
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--max-tokens must be an integer >= 1');
    expect(server.requestCount).toBe(before);
  });

  it('a replay miss is a failed call (exit 1) naming the key', async () => {
    const store = join(root, 'store.jsonl');
    await writeFile(store, `${JSON.stringify({ key: 'other', model: 'm', completion: 'x' })}\n`);
    const result = await run(['llm', 'complete', '--judge', `replay:${store}`, '--prompt', 'x']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no completion for key [0-9a-f]{64}/);
  });

  it('usage prints per-stage rows and an estimated cost from config prices', async () => {
    await writeFile(
      join(root, 'xsb.config.json'),
      JSON.stringify({ prices: { 'openai:gpt-test': { input: 1_000_000, output: 0 } } }),
    );
    const answered = await run([
      'llm',
      'complete',
      '--judge',
      'openai:gpt-test',
      '--prompt',
      'price me',
      '--ledger',
      'data/runs/default/usage_ledger.jsonl',
    ]);
    expect(answered.code).toBe(0);
    const usage = await run(['llm', 'usage']);
    expect(usage.code).toBe(0);
    // One dollar per input token: the estimate equals the input tokens the fake server counted.
    const inputTokens = Number(/in (\d+) out/.exec(usage.stdout)?.[1]);
    expect(inputTokens).toBeGreaterThan(0);
    expect(usage.stdout).toMatch(/^llm\.complete\topenai:gpt-test\tgpt-test\tcalls 1 /m);
    expect(usage.stdout).toContain(`estimated $${inputTokens.toFixed(4)}`);
  });

  it('a recorded prompt is a failed call (exit 1) naming the key', async () => {
    const result = await run([
      'llm',
      'complete',
      '--judge',
      `record:${join(root, 'store.jsonl')}`,
      '--prompt',
      'x',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/prompt recorded as key [0-9a-f]{64}/);
  });
});

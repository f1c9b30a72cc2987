import { exitCodeFor, ProviderError } from '@xsb/core';
import { type FakeFault, type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicAdapter } from './anthropic-adapter';
import { createLlmClient, providerLimitsFor } from './create-llm-client';
import type { ProviderAdapter } from './provider-adapter';
import { ProviderClient } from './provider-client';
import { resolveLimits } from './retry-policy';

let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlmServer();
});
afterAll(async () => {
  await server.close();
});

const SPECS = ['anthropic:claude-test', 'openai:gpt-test'] as const;
const request = { system: 'be brief', messages: [{ role: 'user' as const, content: 'say hi' }] };

function client(spec: string, limits: Record<string, number> = {}) {
  return createLlmClient(spec, {
    env: fakeProviderEnv(server),
    limits: { timeoutMs: 300, maxAttempts: 4, ...limits },
    baseBackoffMs: 5,
  });
}

/** The handler answers with the given faults in turn, then with `fine`. */
function scripted(faults: FakeFault[]) {
  let calls = 0;
  server.setHandler(() => {
    calls += 1;
    const fault = faults[calls - 1];
    return fault ? { fault } : { text: 'fine' };
  });
}

const TRANSIENT: Array<[string, FakeFault, string]> = [
  ['429 with retry-after-ms', { kind: 'status', status: 429, retryAfterMs: 20 }, 'rate_limited'],
  ['500', { kind: 'status', status: 500 }, 'server_error'],
  ['529 overloaded', { kind: 'status', status: 529 }, 'overloaded'],
  ['408', { kind: 'status', status: 408 }, 'timeout'],
  ['409', { kind: 'status', status: 409 }, 'conflict'],
  ['connection reset mid-body', { kind: 'reset' }, 'connection'],
  ['first byte after the timeout', { kind: 'stall', ms: 600 }, 'timeout'],
  ['malformed JSON', { kind: 'malformed' }, 'malformed_answer'],
  ['empty body', { kind: 'empty' }, 'malformed_answer'],
];

describe.each(SPECS)('%s through the real SDK', (spec) => {
  it.each(TRANSIENT)('succeeds after a %s', async (_name, fault) => {
    scripted([fault, fault]);
    const before = server.requestCount;
    const result = await client(spec).complete(request);
    expect(result.text).toBe('fine');
    expect(result.retries).toBe(2);
    expect(server.requestCount - before).toBe(3);
  });

  it.each(TRANSIENT)(
    'fails with a typed ProviderError after the attempt cap on a %s',
    async (_name, fault, code) => {
      scripted([fault, fault, fault, fault, fault]);
      const before = server.requestCount;
      const error = await client(spec, { maxAttempts: 3 })
        .complete(request)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).message).toContain('after 3 attempts');
      expect((error as ProviderError).retryable).toBe(true);
      expect((error as ProviderError).code).toBe(code);
      expect(server.requestCount - before).toBe(3);
    },
  );

  it.each([400, 404, 422])('does not retry HTTP %i', async (status) => {
    scripted([{ kind: 'status', status, message: 'no such thing' }]);
    const before = server.requestCount;
    const error = await client(spec)
      .complete(request)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).status).toBe(status);
    expect((error as ProviderError).message).toContain('no such thing');
    expect(exitCodeFor(error)).toBe(1);
    expect(server.requestCount - before).toBe(1);
  });

  it.each([401, 403])(
    'stops on HTTP %i naming the provider and the key variable, then makes no more calls',
    async (status) => {
      scripted([{ kind: 'status', status }]);
      const llm = client(spec);
      const before = server.requestCount;
      const error = await llm.complete(request).catch((e: unknown) => e);
      const provider = spec.split(':')[0];
      const variable = provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY';
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).message).toContain(provider);
      expect((error as ProviderError).message).toContain(variable);
      expect(exitCodeFor(error)).toBe(2);
      const again = await llm.complete(request).catch((e: unknown) => e);
      expect(again).toBe(error);
      expect(server.requestCount - before).toBe(1);
    },
  );

  it('does not retry a 429 that says the quota is spent', async () => {
    scripted([
      {
        kind: 'status',
        status: 429,
        errorCode: spec.startsWith('openai') ? 'insufficient_quota' : 'enforced_spend_limit_reached',
      },
    ]);
    const before = server.requestCount;
    const error = await client(spec)
      .complete(request)
      .catch((e: unknown) => e);
    expect((error as ProviderError).code).toBe('quota');
    expect(server.requestCount - before).toBe(1);
  });

  it('follows x-should-retry over the status rule, but never retries a 400, 401, 403 or 404', async () => {
    scripted([{ kind: 'status', status: 500, shouldRetry: false }]);
    let before = server.requestCount;
    const error = await client(spec)
      .complete(request)
      .catch((e: unknown) => e);
    expect((error as ProviderError).retryable).toBe(false);
    expect(server.requestCount - before).toBe(1);
    scripted([{ kind: 'status', status: 425, shouldRetry: true }]);
    expect((await client(spec).complete(request)).retries).toBe(1);
    for (const status of [400, 401, 403, 404]) {
      scripted([{ kind: 'status', status, shouldRetry: true }]);
      before = server.requestCount;
      await expect(client(spec).complete(request)).rejects.toBeInstanceOf(ProviderError);
      expect(server.requestCount - before).toBe(1);
    }
  });

  it('gives up at once when the server asks for a wait beyond the total wait budget', async () => {
    scripted([{ kind: 'status', status: 429, retryAfter: '3600' }]);
    const started = Date.now();
    const error = await client(spec, { maxTotalWaitMs: 5_000 })
      .complete(request)
      .catch((e: unknown) => e);
    expect((error as ProviderError).code).toBe('rate_limited');
    expect((error as ProviderError).message).toContain('wait budget');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('honours an HTTP-date retry-after', async () => {
    const at = new Date(Date.now() + 1_500).toUTCString();
    scripted([{ kind: 'status', status: 503, retryAfter: at }]);
    const started = Date.now();
    const result = await client(spec, { timeoutMs: 5_000 }).complete(request);
    expect(result.text).toBe('fine');
    // HTTP dates have 1 s resolution: the wait is at least the date minus that second.
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
  });
});

describe('Retry-After: 2 (measured)', () => {
  it.each(SPECS)('%s does not retry before 2 s have passed', async (spec) => {
    const arrivals: number[] = [];
    let calls = 0;
    server.setHandler(() => {
      arrivals.push(Date.now());
      calls += 1;
      return calls === 1 ? { fault: { kind: 'status', status: 429, retryAfter: '2' } } : { text: 'fine' };
    });
    const result = await client(spec, { timeoutMs: 5_000 }).complete(request);
    expect(result.text).toBe('fine');
    expect(result.retries).toBe(1);
    expect(arrivals).toHaveLength(2);
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(2_000);
  });
});

describe('admission control', () => {
  it('never has more calls in flight than maxConcurrency', async () => {
    let inFlight = 0;
    let peak = 0;
    server.setHandler(async () => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 30));
      inFlight -= 1;
      return { text: 'fine' };
    });
    const llm = client('openai:gpt-test', { maxConcurrency: 3 });
    await Promise.all(
      Array.from({ length: 12 }, (_, i) => llm.complete({ messages: [{ role: 'user', content: `q${i}` }] })),
    );
    expect(peak).toBe(3);
  });

  it('spaces calls to the requests-per-minute budget once the burst is spent', async () => {
    server.setHandler(() => ({ text: 'fine' }));
    const llm = client('anthropic:claude-test', { requestsPerMinute: 120 });
    const started = Date.now();
    const calls = Array.from({ length: 122 }, (_, i) =>
      llm.complete({ messages: [{ role: 'user', content: `r${i}` }] }),
    );
    await Promise.all(calls);
    // 120 go at once, the 121st and 122nd wait 0.5 s each for refill.
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('holds a call back until the tokens-per-minute budget has room for its estimate', async () => {
    const arrivals: number[] = [];
    server.setHandler((r) => {
      arrivals.push(Date.now());
      // The big call really uses its whole 12,000-token answer budget (4 bytes a token).
      return { text: r.text === 'big' ? 'x'.repeat(48_000) : 'fine' };
    });
    // 12,000 tokens/min refill at 200 tokens/s. The first call spends the whole bucket; the second
    // needs ~92 tokens (prompt + 90), about 0.46 s of refill.
    const llm = client('openai:gpt-test', { tokensPerMinute: 12_000 });
    const started = Date.now();
    await llm.complete({ messages: [{ role: 'user', content: 'big' }], maxTokens: 12_000 });
    await llm.complete({ messages: [{ role: 'user', content: 'small' }], maxTokens: 90 });
    expect(arrivals).toHaveLength(2);
    expect(arrivals[1]! - started).toBeGreaterThanOrEqual(430);
  });

  it('charges the estimate while a call is in flight and gives back what its answer did not use', async () => {
    const arrivals: Record<string, number> = {};
    server.setHandler(async (r) => {
      arrivals[r.text] = Date.now();
      if (r.text === 'big') await new Promise((resolve) => setTimeout(resolve, 200));
      return { text: 'short' };
    });
    // 6,000 tokens/min = 100 tokens/s. The big call reserves the whole bucket; the small one waits
    // for its answer (~200 ms), which used a few tokens and returns the rest. Without the refund it
    // would wait for ~0.9 s of refill.
    const llm = client('openai:gpt-test', { tokensPerMinute: 6_000, maxConcurrency: 4 });
    const big = llm.complete({ messages: [{ role: 'user', content: 'big' }], maxTokens: 6_000 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const small = llm.complete({ messages: [{ role: 'user', content: 'small' }], maxTokens: 90 });
    await Promise.all([big, small]);
    const waited = arrivals.small! - arrivals.big!;
    expect(waited).toBeGreaterThanOrEqual(150);
    expect(waited).toBeLessThan(700);
  });
});

describe('shared budgets', () => {
  it('a server-given retry time holds back the other calls of the budget too', async () => {
    const arrivals: Array<[string, number]> = [];
    server.setHandler((r) => {
      arrivals.push([r.text, Date.now()]);
      return arrivals.length === 1
        ? { fault: { kind: 'status', status: 429, retryAfterMs: 600 } }
        : { text: 'fine' };
    });
    const llm = client('anthropic:claude-test', { maxConcurrency: 5, timeoutMs: 5_000 });
    const first = llm.complete({ messages: [{ role: 'user', content: 'first' }] });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = llm.complete({ messages: [{ role: 'user', content: 'second' }] });
    await Promise.all([first, second]);
    const [start] = arrivals[0]!;
    expect(start).toBe('first');
    const secondArrival = arrivals.find(([text]) => text === 'second')![1];
    expect(secondArrival - arrivals[0]![1]).toBeGreaterThanOrEqual(590);
  });

  it('clients of one account, endpoint and limits share one concurrency budget', async () => {
    let inFlight = 0;
    let peak = 0;
    server.setHandler(async () => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 30));
      inFlight -= 1;
      return { text: 'fine' };
    });
    const clients = [
      client('openai:gpt-a', { maxConcurrency: 2 }),
      client('openai:gpt-b', { maxConcurrency: 2 }),
    ];
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        clients[i % 2]!.complete({ messages: [{ role: 'user', content: `s${i}` }] }),
      ),
    );
    expect(peak).toBe(2);
  });
});

describe('unreachable server', () => {
  it('retries a refused connection, then fails with code connection', async () => {
    const closed = await startFakeLlmServer();
    const url = closed.url;
    await closed.close();
    const llm = createLlmClient('openai:gpt-test', {
      env: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${url}/v1` },
      limits: { maxAttempts: 3 },
      baseBackoffMs: 5,
    });
    const error = await llm.complete(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe('connection');
    expect((error as ProviderError).message).toContain('after 3 attempts');
  });

  it('takes the provider entry of config providers when no limits are given', async () => {
    scripted([
      { kind: 'status', status: 500 },
      { kind: 'status', status: 500 },
    ]);
    const llm = createLlmClient('anthropic:claude-test', {
      env: fakeProviderEnv(server),
      providers: { anthropic: { maxAttempts: 2 }, openai: { maxAttempts: 9 } },
      baseBackoffMs: 5,
    });
    await expect(llm.complete(request)).rejects.toThrow('after 2 attempts');
    const providers = { anthropic: { maxAttempts: 2 }, openai: { maxAttempts: 9 } };
    expect(providerLimitsFor('openai:gpt-x', providers)).toEqual({ maxAttempts: 9 });
    expect(providerLimitsFor('replay:store.jsonl', providers)).toBeUndefined();
  });
});

describe('the total wait cap', () => {
  it('stops once the backoff waits so far plus the next would pass maxTotalWaitMs', async () => {
    scripted(Array.from({ length: 10 }, () => ({ kind: 'status', status: 500 }) as const));
    const before = server.requestCount;
    // Jitter pinned high: waits of 100 then 200 ms; 100 + 200 passes the 250 ms budget.
    const llm = createLlmClient('openai:gpt-test', {
      env: fakeProviderEnv(server),
      limits: { maxAttempts: 10, maxTotalWaitMs: 250 },
      baseBackoffMs: 100,
      random: () => 1,
    });
    const error = await llm.complete(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toContain('after 2 attempts');
    expect((error as ProviderError).message).toContain('250 ms wait budget');
    expect(server.requestCount - before).toBe(2);
  });
});

describe('the first call of a process', () => {
  it('does not count loading the SDK against the attempt timeout', async () => {
    // The real Anthropic adapter whose SDK takes 250 ms to load (importing it cold takes 350-550 ms here).
    const real = createAnthropicAdapter('sk-ant-test', fakeProviderEnv(server).ANTHROPIC_BASE_URL!);
    let loading: Promise<unknown> | undefined;
    const slowLoad = () => {
      loading ??= new Promise((resolve) => setTimeout(resolve, 250)).then(() => real.ready());
      return loading;
    };
    const adapter: ProviderAdapter = {
      ...real,
      ready: slowLoad,
      send: async (...args) => {
        await slowLoad();
        return real.send(...args);
      },
    };
    server.setHandler(() => ({ text: 'fine' }));
    const client = new ProviderClient({
      judgeId: 'anthropic:claude-test',
      model: 'claude-test',
      adapter,
      limits: resolveLimits({ timeoutMs: 100, maxAttempts: 4 }),
      refresh: false,
      stage: 'test',
      secrets: ['sk-ant-test'],
      baseBackoffMs: 5,
    });
    const result = await client.complete(request);
    expect(result.retries).toBe(0);
  });
});

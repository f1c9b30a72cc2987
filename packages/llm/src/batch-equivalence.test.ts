import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mapWithConcurrency, writeFileAtomic } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import {
  type FakeLlmHandler,
  type FakeLlmServer,
  fakeProviderEnv,
  startFakeLlmServer,
} from '@xsb/llm/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { completeJson } from './complete-json';
import type { LlmClient } from './completion-types';
import { createLlmClient } from './create-llm-client';

/**
 * A stage with dependent steps, written as stages are (no batching in it): extract claims from
 * each item (a structured answer, with completeJson's corrective call when it is unusable), then
 * verify every claim; the artifact is one JSON line per item.
 */
async function claimStage(client: LlmClient, items: string[], artifact: string): Promise<void> {
  const rows = await mapWithConcurrency(items, client.preferredConcurrency ?? 4, async (item) => {
    const { value: claims, result } = await completeJson(
      client,
      {
        system: 'Extract the claims as a JSON array of strings.',
        messages: [{ role: 'user', content: item }],
        stage: 'extract',
      },
      z.array(z.string()),
    );
    const verdicts = await Promise.all(
      claims.map((claim) =>
        client.complete({
          system: 'Verify the claim.',
          messages: [{ role: 'user', content: claim }],
          stage: 'verify',
        }),
      ),
    );
    return {
      item,
      claims,
      verdicts: verdicts.map((verdict) => verdict.text),
      judge: result.judgeId,
      tokens: verdicts.reduce(
        (sum, v) => sum + v.usage.inputTokens + v.usage.outputTokens,
        result.usage.outputTokens,
      ),
    };
  });
  await writeFileAtomic(artifact, rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
}

/** The scripted judge: the same answers online and in batches. Item "messy" first answers prose. */
const judge: FakeLlmHandler = (request) => {
  if (request.system.startsWith('Extract')) {
    if (request.text === 'messy item') return { text: 'Sorry, here they are: claim one; claim two' };
    const words = request.text.split(' ');
    return { text: JSON.stringify(words.map((word) => `${word} is true`)) };
  }
  return { text: `supported: ${request.text}` };
};

/** The corrective call of completeJson names the finding; the judge then answers properly. */
const judgeWithCorrection: FakeLlmHandler = (request) =>
  request.system.startsWith('Extract') && request.text.includes('could not be used')
    ? { text: JSON.stringify(['messy claim']) }
    : judge(request);

/**
 * The cache entries without `latencyMs` (it differs between any two runs) and `key` (it names the
 * base URL, and each run has its own fake server), in a stable order.
 */
async function cacheEntries(cacheDir: string): Promise<string[]> {
  const root = join(cacheDir, 'llm', 'v1');
  const out: string[] = [];
  for (const shard of await readdir(root))
    for (const name of await readdir(join(root, shard))) {
      const {
        latencyMs: _latency,
        key: _key,
        ...entry
      } = JSON.parse(await readFile(join(root, shard, name), 'utf8'));
      out.push(JSON.stringify(entry));
    }
  return out.sort();
}

const ITEMS = ['alpha beta', 'gamma delta epsilon', 'messy item', 'zeta', 'eta theta'];

let dir: string;
let cleanup: () => Promise<void>;
const servers: FakeLlmServer[] = [];
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-llm-batch-same-'));
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await cleanup();
});

describe.each(['anthropic:claude-test', 'openai:gpt-test'])('%s online and batch runs', (spec) => {
  it('write byte-identical artifacts and equal cache entries; each dependent step is one batch', async () => {
    const run = async (mode: 'online' | 'batch') => {
      const server = await startFakeLlmServer({ handler: judgeWithCorrection });
      servers.push(server);
      const cacheDir = join(dir, mode, 'cache');
      const client = createLlmClient(spec, {
        env: fakeProviderEnv(server),
        cacheDir,
        ledgerFile: join(dir, mode, 'usage_ledger.jsonl'),
        ...(mode === 'batch'
          ? { batch: { stateDir: join(dir, mode), idleMs: 50, pollIntervalMs: 10, maxPollIntervalMs: 20 } }
          : {}),
      });
      const artifact = join(dir, mode, 'claims.jsonl');
      await claimStage(client, ITEMS, artifact);
      return { server, artifact, cacheDir };
    };
    const online = await run('online');
    const batch = await run('batch');
    expect(await readFile(batch.artifact, 'utf8')).toBe(await readFile(online.artifact, 'utf8'));
    expect(await cacheEntries(batch.cacheDir)).toEqual(await cacheEntries(online.cacheDir));
    expect(online.server.batches).toHaveLength(0);
    // Wave 1: every extraction. Wave 2: the verifications of four items and the corrective call of
    // the messy one. Wave 3: the messy item's verification.
    expect(batch.server.batches.map((b) => b.customIds.length)).toEqual([5, 9, 1]);
    expect(batch.server.requests.every((r) => r.batchId !== undefined)).toBe(true);
  });
});

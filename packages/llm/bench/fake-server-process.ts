import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { FakeRateLimits, FakeRateStats } from '../src/fake-rate-limits';

export interface ServerInChild {
  url: string;
  /** The enforcer's counts so far (zeros without rate limits). */
  stats: () => Promise<FakeRateStats>;
  stop: () => Promise<void>;
}

/**
 * The fake server in a child process (as a real provider would be, so its CPU is not charged to
 * the client under test); resolves to its URL, its enforcer's counts and a stop function.
 */
export async function serveInChild(
  latencyMs: number,
  extra: { rateLimits?: FakeRateLimits; batchProcessingMs?: number; answerBytes?: number } = {},
): Promise<ServerInChild> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/serve-fake-llm.ts', String(latencyMs), JSON.stringify(extra)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const [first] = (await once(child.stdout, 'data')) as [Buffer];
  return {
    url: first.toString().trim(),
    stats: async () => {
      child.stdin.write('\n');
      const [line] = (await once(child.stdout, 'data')) as [Buffer];
      return JSON.parse(line.toString()) as FakeRateStats;
    },
    stop: async () => {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

export const envFor = (url: string) => ({
  ANTHROPIC_API_KEY: 'bench-key',
  ANTHROPIC_BASE_URL: url,
  OPENAI_API_KEY: 'bench-key',
  OPENAI_BASE_URL: `${url}/v1`,
});

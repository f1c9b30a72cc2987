import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StageEvent } from './stage-contract';

/** A fresh temp folder for one test, removed by the returned cleanup. */
export async function makeTempDir(
  prefix = 'xsb-test-',
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  // Retries ride out a file a just-stopped server or child process was still closing (ENOTEMPTY, EBUSY).
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }) };
}

type CallMadeEvent = Extract<StageEvent, { type: 'call-made' }>;

/**
 * The `call-made` events of a stage's event stream. Throws (failing the test) when one names another
 * stage or unit than `where`, or carries no input or output tokens: each must report a real call's usage.
 */
export function callsMade(
  events: readonly StageEvent[],
  where: { stage: string; id: string },
): CallMadeEvent[] {
  const calls = events.filter((event): event is CallMadeEvent => event.type === 'call-made');
  for (const call of calls) {
    if (call.stage !== where.stage || call.id !== where.id)
      throw new Error(`a call-made event of ${call.stage} ${call.id}, expected ${where.stage} ${where.id}`);
    if (!(call.usage.inputTokens > 0 && call.usage.outputTokens > 0))
      throw new Error(`a call-made event of ${call.id} without usage: ${JSON.stringify(call.usage)}`);
  }
  return calls;
}

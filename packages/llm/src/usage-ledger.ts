import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type UsageLedgerEntry, usageLedgerEntrySchema, validateRecord } from '@xsb/core';
import type { TokenUsage } from './completion-types';

/** One call as the clients report it; the ledger adds the time, `ok` and zero usage for failures. */
export interface LedgerCall {
  stage: string;
  judge: string;
  provider: string;
  model: string;
  latencyMs: number;
  retries: number;
  cacheHit: boolean;
  /** Billed tokens; omitted for calls that billed nothing (failures, replayed answers). */
  usage?: TokenUsage;
  /** The error code of a failed call; its presence makes the line `ok: false`. */
  error?: string;
}

const NO_USAGE: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

/**
 * Appends one validated line per call to the run's usage ledger. Each line is a single `appendFile`
 * (O_APPEND), so lines from concurrent processes never interleave mid-line; within a process the
 * appends are chained so lines keep call-completion order.
 */
export class UsageLedger {
  private tail: Promise<void> = Promise.resolve();
  private ready: Promise<unknown> | undefined;

  constructor(readonly file: string) {}

  appendCall(call: LedgerCall): Promise<void> {
    const usage = call.usage ?? NO_USAGE;
    return this.append({
      time: new Date().toISOString(),
      stage: call.stage,
      judge: call.judge,
      provider: call.provider,
      model: call.model,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cacheReadTokens: usage.cacheReadTokens,
      cacheWriteTokens: usage.cacheWriteTokens,
      latencyMs: Math.round(call.latencyMs * 1000) / 1000,
      retries: call.retries,
      cacheHit: call.cacheHit,
      ok: call.error === undefined,
      ...(call.error !== undefined ? { error: call.error } : {}),
    });
  }

  private append(entry: UsageLedgerEntry): Promise<void> {
    const value = validateRecord(usageLedgerEntrySchema, entry, { file: this.file });
    const line = `${JSON.stringify(value)}\n`;
    this.ready ??= mkdir(dirname(this.file), { recursive: true });
    const ready = this.ready;
    const next = this.tail.then(async () => {
      await ready;
      await appendFile(this.file, line);
    });
    this.tail = next.catch(() => undefined);
    return next;
  }
}

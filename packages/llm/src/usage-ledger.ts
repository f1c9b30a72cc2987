import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type ModelPrice, validateRecord } from '@xsb/core';
import type { TokenUsage } from './completion-types';
import { costOfUsage, priceFor } from './price-table';
import { type UsageLedgerEntry, usageLedgerEntrySchema } from './schemas/usage-ledger-entry';

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
  /** The provider's batch id when the call went through a batch API (`batch: true`, batch price). */
  batchId?: string;
  /** The input tokens estimated before the call ({@link estimateTokens}). */
  estimatedInputTokens?: number;
}

const NO_USAGE: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

/**
 * Appends one validated line per call, whole lines by `appendFile` (O_APPEND); lines queued during a
 * write go out together in the next (a batch's thousands of results do not cost a write each).
 */
export class UsageLedger {
  private queued: Array<{ line: string; done: () => void; failed: (error: unknown) => void }> = [];
  private writing = false;
  private ready: Promise<unknown> | undefined;

  /** `prices`: config `prices`, over the default table, for each line's `costUsd`. */
  constructor(
    readonly file: string,
    private readonly prices: Readonly<Record<string, ModelPrice>> = {},
  ) {}

  appendCall(call: LedgerCall): Promise<void> {
    const usage = call.usage ?? NO_USAGE;
    const price = priceFor(call.judge, call.model, this.prices);
    const batch = call.batchId !== undefined;
    const costUsd = call.cacheHit ? 0 : price ? costOfUsage(usage, price, batch) : undefined;
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
      ...(batch ? { batch: true, batchId: call.batchId } : {}),
      // Rounded to 1e-9 USD so a line does not print float noise.
      ...(costUsd !== undefined ? { costUsd: Math.round(costUsd * 1e9) / 1e9 } : {}),
      ...(call.estimatedInputTokens !== undefined ? { estimatedInputTokens: call.estimatedInputTokens } : {}),
    });
  }

  private append(entry: UsageLedgerEntry): Promise<void> {
    const value = validateRecord(usageLedgerEntrySchema, entry, { file: this.file });
    const line = `${JSON.stringify(value)}\n`;
    return new Promise<void>((done, failed) => {
      this.queued.push({ line, done, failed });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    this.ready ??= mkdir(dirname(this.file), { recursive: true });
    while (this.queued.length > 0) {
      const group = this.queued.splice(0);
      try {
        await this.ready;
        await appendFile(this.file, group.map((item) => item.line).join(''));
        for (const item of group) item.done();
      } catch (error) {
        for (const item of group) item.failed(error);
      }
    }
    this.writing = false;
  }
}

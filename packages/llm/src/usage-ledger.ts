import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type UsageLedgerEntry, usageLedgerEntrySchema, validateRecord } from '@xsb/core';

/**
 * Appends one validated line per call to the run's usage ledger. Each line is a single `appendFile`
 * (O_APPEND), so lines from concurrent processes never interleave mid-line; within a process the
 * appends are chained so lines keep call-completion order.
 */
export class UsageLedger {
  private tail: Promise<void> = Promise.resolve();
  private ready: Promise<unknown> | undefined;

  constructor(readonly file: string) {}

  append(entry: UsageLedgerEntry): Promise<void> {
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

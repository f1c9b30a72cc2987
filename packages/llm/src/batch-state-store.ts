import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import {
  type BatchState,
  batchStateSchema,
  InputError,
  validateRecord,
  withDirectoryLock,
  writeFileAtomic,
} from '@xsb/core';

let sequence = 0;

/** Long enough for another process to store a large batch's results while this one waits. */
const LOCK_TIMEOUT_MS = 30 * 60_000;

/**
 * The batch state files of one run (`<stateDir>/batches/<id>.json`), for one provider and base URL.
 * Writes are atomic (temp + rename); changes that decide whether a request is submitted or billed
 * run under the folder's lock (`batches/.xsb.lock`), so two processes on one run never submit the
 * same request twice nor bill one answer twice.
 */
export class BatchStateStore {
  readonly dir: string;
  private readonly records = new Map<string, BatchState>();
  private readonly byCustomId = new Map<string, string[]>();

  constructor(
    stateDir: string,
    private readonly scope: { provider: string; baseUrl: string },
  ) {
    this.dir = join(stateDir, 'batches');
  }

  /**
   * Reads every state file of this provider and base URL. A file that does not parse or validate
   * stops the run (InputError naming it): without it xsb cannot know whether its requests were paid.
   */
  async scan(): Promise<void> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      if (!name.endsWith('.json') || name.startsWith('.')) continue;
      const record = await this.readFile(join(this.dir, name));
      if (record && record.provider === this.scope.provider && record.baseUrl === this.scope.baseUrl)
        this.remember(record);
    }
  }

  /** The record as it is on disk now (another process may have changed it). */
  async reread(id: string): Promise<BatchState | undefined> {
    const record = await this.readFile(this.fileOf(id));
    if (record) this.remember(record);
    return record;
  }

  get(id: string): BatchState | undefined {
    return this.records.get(id);
  }

  /** Every record naming a custom_id, oldest first. */
  recordsWith(customId: string): BatchState[] {
    return (this.byCustomId.get(customId) ?? []).map((id) => this.records.get(id) as BatchState);
  }

  /** The newest record of a custom_id that is still being submitted or processed. */
  openRecordWith(customId: string): BatchState | undefined {
    return this.recordsWith(customId)
      .reverse()
      .find((record) => record.status === 'preparing' || record.status === 'submitted');
  }

  knownBatchIds(): Set<string> {
    const ids = new Set<string>();
    for (const record of this.records.values()) if (record.batchId) ids.add(record.batchId);
    return ids;
  }

  /** A new record in `preparing`, owned by this process. */
  create(fields: {
    judge: string;
    model: string;
    round: number;
    requests: BatchState['requests'];
  }): BatchState {
    const now = new Date();
    // Ids sort in creation order (to the millisecond, then this process's counter): scans read
    // records oldest first, and "the newest record of a request" relies on it.
    const stamp = now.toISOString().replace(/[-:.]/g, '').replace(/Z$/, '');
    sequence += 1;
    return {
      v: 1,
      id: `b-${stamp}-${String(sequence).padStart(4, '0')}-${randomBytes(3).toString('hex')}`,
      provider: this.scope.provider as BatchState['provider'],
      baseUrl: this.scope.baseUrl,
      status: 'preparing',
      createdAt: now.toISOString(),
      owner: { pid: process.pid, host: hostname() },
      ...fields,
    };
  }

  async write(record: BatchState): Promise<void> {
    const value = validateRecord(batchStateSchema, record, { file: this.fileOf(record.id) });
    await writeFileAtomic(this.fileOf(record.id), `${JSON.stringify(value)}\n`);
    this.remember(value);
  }

  withLock<T>(fn: () => Promise<T>): Promise<T> {
    return withDirectoryLock(this.dir, fn, { timeoutMs: LOCK_TIMEOUT_MS });
  }

  /** True when the record's writer is another process on this host that is still running. */
  ownedByLiveProcess(record: BatchState): boolean {
    const owner = record.owner;
    if (!owner || owner.host !== hostname() || owner.pid === process.pid) return false;
    try {
      process.kill(owner.pid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  }

  private fileOf(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  private async readFile(file: string): Promise<BatchState | undefined> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      return undefined;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new InputError(
        `batch state file is not JSON (${(error as Error).message}); it may name a batch already paid for: fix it, or remove it to submit its requests again`,
        { file, code: 'batch_state' },
      );
    }
    return validateRecord(batchStateSchema, parsed, { file });
  }

  private remember(record: BatchState): void {
    const known = this.records.has(record.id);
    this.records.set(record.id, record);
    if (known) return;
    for (const { customId } of record.requests) {
      const ids = this.byCustomId.get(customId);
      if (ids) ids.push(record.id);
      else this.byCustomId.set(customId, [record.id]);
    }
  }
}

import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { InputError, validateRecord, withDirectoryLock, writeFileAtomic } from '@xsb/core';
import { type BatchState, batchStateSchema } from './schemas/batch-state';

let sequence = 0;

/** Puts `key` last (most recently used) and drops the oldest entries past `max`. */
export function keepRecent<V>(map: Map<string, V>, key: string, value: V, max: number): V {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as string);
  return value;
}

/** Long enough for another process to store a large batch's results while this one waits. */
const LOCK_TIMEOUT_MS = 30 * 60_000;

/** Settled records read back from disk for a lookup, kept for the next lookups of the same batches. */
const SETTLED_CACHE_SIZE = 8;

/** What the store keeps of one record: all of it while open, only its header once settled. */
interface Known {
  id: string;
  status: BatchState['status'];
  batchId: string | undefined;
  /** The whole record while it is `preparing` or `submitted`; dropped once it is settled. */
  open: { record: BatchState; customIds: Set<string> } | undefined;
}

/** A settled record read back from its file, with its custom_ids and missing ones as sets. */
interface Settled {
  record: BatchState;
  customIds: Set<string>;
  missing: Set<string>;
}

/** A custom_id as a 32-bit number (its key is a sha-256); a hit is confirmed against the record. */
function slotOf(customId: string): number {
  return Number.parseInt(customId.slice(4, 12), 16) | 0;
}

/**
 * The batch state files of one run, for one provider and base URL. Changes that decide whether a request
 * is submitted or billed run under the folder's lock. Memory follows the batches in flight: a settled
 * record keeps only its header, and a compact index says which records may name a request.
 */
export class BatchStateStore {
  readonly dir: string;
  /** Every record of this scope, in the order first seen (ids sort in creation order). */
  private readonly known: Known[] = [];
  private readonly ordinalOf = new Map<string, number>();
  private readonly index = new Map<number, number | number[]>();
  /** State files of another provider or base URL: read once, skipped by later scans. */
  private readonly foreign = new Set<string>();
  private readonly settledCache = new Map<string, Settled>();

  constructor(
    stateDir: string,
    private readonly scope: { provider: string; baseUrl: string },
  ) {
    this.dir = join(stateDir, 'batches');
  }

  /** Reads state files not yet seen settled; an unreadable one stops the run (were its requests paid?). */
  async scan(): Promise<void> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      if (!name.endsWith('.json') || name.startsWith('.') || this.foreign.has(name)) continue;
      const ordinal = this.ordinalOf.get(name.slice(0, -'.json'.length));
      if (ordinal !== undefined && !this.known[ordinal]?.open) continue;
      const record = await this.readFile(join(this.dir, name));
      if (!record) continue;
      if (record.provider === this.scope.provider && record.baseUrl === this.scope.baseUrl)
        this.remember(record);
      else this.foreign.add(name);
    }
  }

  /** The record as it is on disk now (another process may have changed it). */
  async reread(id: string): Promise<BatchState | undefined> {
    const record = await this.readFile(this.fileOf(id));
    if (record) this.remember(record);
    return record;
  }

  /** An open record (`preparing` or `submitted`); settled ones are not kept whole. */
  get(id: string): BatchState | undefined {
    const ordinal = this.ordinalOf.get(id);
    return ordinal === undefined ? undefined : this.known[ordinal]?.open?.record;
  }

  /** The newest record of a custom_id that is still being submitted or processed. */
  openRecordWith(customId: string): BatchState | undefined {
    for (const ordinal of this.candidates(customId).reverse()) {
      const open = this.known[ordinal]?.open;
      if (open?.customIds.has(customId)) return open.record;
    }
    return undefined;
  }

  /** The newest collected record that answered a custom_id (it is not among its `missing`), if any. */
  async answeredRecordWith(customId: string): Promise<BatchState | undefined> {
    for (const ordinal of this.candidates(customId).reverse()) {
      const known = this.known[ordinal] as Known;
      if (known.status !== 'collected') continue;
      const settled = await this.settled(known.id);
      if (settled?.customIds.has(customId) && !settled.missing.has(customId)) return settled.record;
    }
    return undefined;
  }

  /** How many records name a custom_id (its next submission is round this + 1). */
  async submissionsOf(customId: string): Promise<number> {
    let count = 0;
    for (const ordinal of this.candidates(customId)) {
      const known = this.known[ordinal] as Known;
      if (known.open) count += known.open.customIds.has(customId) ? 1 : 0;
      else if ((await this.settled(known.id))?.customIds.has(customId)) count += 1;
    }
    return count;
  }

  /** Request entries held in memory: those of open records only (the bound the store keeps). */
  get heldRequests(): number {
    let count = 0;
    for (const known of this.known) count += known.open?.record.requests.length ?? 0;
    return count;
  }

  knownBatchIds(): Set<string> {
    const ids = new Set<string>();
    for (const known of this.known) if (known.batchId) ids.add(known.batchId);
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

  private candidates(customId: string): number[] {
    const slot = this.index.get(slotOf(customId));
    return slot === undefined ? [] : typeof slot === 'number' ? [slot] : [...slot];
  }

  /** A settled record's custom_ids and missing ones, read from its file (the last few are kept). */
  private async settled(id: string): Promise<Settled | undefined> {
    const hit = this.settledCache.get(id);
    if (hit) return keepRecent(this.settledCache, id, hit, SETTLED_CACHE_SIZE);
    const record = await this.readFile(this.fileOf(id));
    if (!record) return undefined;
    const customIds = new Set(record.requests.map((request) => request.customId));
    const settled = { record, customIds, missing: new Set(record.missing ?? []) };
    return keepRecent(this.settledCache, id, settled, SETTLED_CACHE_SIZE);
  }

  private remember(record: BatchState): void {
    let ordinal = this.ordinalOf.get(record.id);
    if (ordinal === undefined) {
      ordinal = this.known.length;
      this.ordinalOf.set(record.id, ordinal);
      this.known.push({ id: record.id, status: record.status, batchId: undefined, open: undefined });
      for (const { customId } of record.requests) {
        const slot = slotOf(customId);
        const at = this.index.get(slot);
        if (at === undefined) this.index.set(slot, ordinal);
        else if (typeof at === 'number') {
          if (at !== ordinal) this.index.set(slot, [at, ordinal]);
        } else if (at.at(-1) !== ordinal) at.push(ordinal);
      }
    }
    const known = this.known[ordinal] as Known;
    known.status = record.status;
    known.batchId = record.batchId;
    const open = record.status === 'preparing' || record.status === 'submitted';
    known.open = open
      ? {
          record,
          customIds: known.open?.customIds ?? new Set(record.requests.map(({ customId }) => customId)),
        }
      : undefined;
  }
}

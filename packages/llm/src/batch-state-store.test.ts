import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchStateStore } from './batch-state-store';
import type { BatchState } from './schemas/batch-state';

const SCOPE = { provider: 'anthropic', baseUrl: 'http://127.0.0.1:1' };

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-llm-batch-store-'));
});
afterEach(async () => {
  await cleanup();
});

/** A request entry whose custom_id starts with `head` (8 hex digits: the store's index slot). */
function request(head: string, tail: string): BatchState['requests'][number] {
  const key = `${head}${tail}`.padEnd(64, '0');
  return { customId: `xsb-${key.slice(0, 60)}`, key, stage: 'rubric.item' };
}

async function submitted(store: BatchStateStore, requests: BatchState['requests']): Promise<BatchState> {
  const record = store.create({
    judge: 'anthropic:claude-sonnet-4-5',
    model: 'claude-sonnet-4-5',
    round: 1,
    requests,
  });
  record.status = 'submitted';
  record.batchId = `msgbatch_${record.id.slice(-6)}`;
  await store.write(record);
  return record;
}

async function collect(store: BatchStateStore, record: BatchState, missing: string[]): Promise<void> {
  await store.write({ ...record, status: 'collected', missing });
}

describe('BatchStateStore', () => {
  it('keeps an open record whole and only the header of a collected one, answering from its file', async () => {
    const store = new BatchStateStore(dir, SCOPE);
    const [a, b, c] = [request('0000000a', '1'), request('0000000b', '2'), request('0000000c', '3')];
    const record = await submitted(store, [a, b, c]);
    expect(store.heldRequests).toBe(3);
    expect(store.openRecordWith(a.customId)?.id).toBe(record.id);

    await collect(store, record, [c.customId]);
    expect(store.heldRequests).toBe(0);
    expect(store.get(record.id)).toBeUndefined();
    expect(store.openRecordWith(a.customId)).toBeUndefined();
    expect(store.knownBatchIds()).toEqual(new Set([record.batchId]));
    expect((await store.answeredRecordWith(a.customId))?.id).toBe(record.id);
    // c got no answer: it is resubmitted in round 2, and only a named request counts.
    expect(await store.answeredRecordWith(c.customId)).toBeUndefined();
    expect(await store.submissionsOf(c.customId)).toBe(1);
    expect(await store.submissionsOf(request('0000000d', '4').customId)).toBe(0);

    // A restarted process sees the same from the files, holding no request list either.
    const restarted = new BatchStateStore(dir, SCOPE);
    await restarted.scan();
    expect(restarted.heldRequests).toBe(0);
    expect((await restarted.answeredRecordWith(b.customId))?.batchId).toBe(record.batchId);
    expect(await restarted.answeredRecordWith(c.customId)).toBeUndefined();
  });

  it('reads a settled record from disk, not from memory: what its file says is what counts', async () => {
    const store = new BatchStateStore(dir, SCOPE);
    const a = request('00000a00', '1');
    const record = await submitted(store, [a, request('00000b00', '2')]);
    await collect(store, record, []);
    const file = join(dir, 'batches', `${record.id}.json`);
    const onDisk = JSON.parse(await readFile(file, 'utf8')) as BatchState;
    await writeFile(file, `${JSON.stringify({ ...onDisk, missing: [a.customId] })}\n`);
    expect(await store.answeredRecordWith(a.customId)).toBeUndefined();
  });

  it('confirms an index hit against the record: requests sharing a slot stay apart', async () => {
    const store = new BatchStateStore(dir, SCOPE);
    const first = request('12345678', 'aa');
    const second = request('12345678', 'bb');
    const one = await submitted(store, [first]);
    const two = await submitted(store, [second]);
    expect(store.openRecordWith(first.customId)?.id).toBe(one.id);
    expect(store.openRecordWith(second.customId)?.id).toBe(two.id);
    await collect(store, one, []);
    await collect(store, two, [second.customId]);
    expect((await store.answeredRecordWith(first.customId))?.id).toBe(one.id);
    expect(await store.answeredRecordWith(second.customId)).toBeUndefined();
    expect(await store.submissionsOf(first.customId)).toBe(1);
    expect(await store.submissionsOf(second.customId)).toBe(1);
  });

  it('does not read a settled file again on each scan; a damaged one fails its lookup naming it', async () => {
    const store = new BatchStateStore(dir, SCOPE);
    const a = request('0000abcd', '1');
    const record = await submitted(store, [a]);
    await collect(store, record, []);
    const file = join(dir, 'batches', `${record.id}.json`);
    await writeFile(file, '{"v":1,');
    await store.scan();
    const error = await store.answeredRecordWith(a.customId).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toContain(`${file}: batch state file is not JSON`);
    // A new process reads every file once: the damage stops it before any submission.
    await expect(new BatchStateStore(dir, SCOPE).scan()).rejects.toBeInstanceOf(InputError);
  });
});

import type { BatchContext, Entry } from './batch-context';
import type { BatchDeliverer } from './batch-deliverer';
import { findOrphan } from './batch-poller';
import { BatchCallError, retryBatchCall } from './batch-retry';
import type { NoAnswer } from './batch-state-machine';
import type { BatchState } from './schemas/batch-state';

/**
 * Turns a closed chunk into a batch: the state file first, then the upload and create calls. One
 * chunk at a time: each holds its body in memory while sent, and a create takes seconds, a batch hours.
 */
export class BatchSubmitter {
  constructor(
    private readonly context: BatchContext,
    private readonly deliverer: BatchDeliverer,
  ) {}

  async submit(chunk: number): Promise<void> {
    try {
      const prepared = await this.prepare(chunk);
      if (prepared) await this.create(prepared.record, prepared.members);
    } finally {
      this.context.scheduler.dispatch({ type: 'submission-ended', chunk });
    }
  }

  /** Under the lock: the chunk's requests no batch holds or answered yet go into a new state file. */
  private async prepare(chunk: number): Promise<{ record: BatchState; members: Entry[] } | undefined> {
    const { store, scheduler } = this.context;
    try {
      return await store.withLock(async () => {
        // Another process on this run may have submitted some of these meanwhile, or even had
        // their batch collected since they were routed: those are answered, not paid for again.
        await store.scan();
        const members = await this.unsubmitted(chunk);
        if (members.length === 0) return undefined;
        let round = 1;
        for (const entry of members) round = Math.max(round, (await store.submissionsOf(entry.customId)) + 1);
        const record = store.create({
          judge: this.context.judgeId,
          model: members[0]?.model as string,
          round,
          requests: members.map(({ customId, key, stage }) => ({ customId, key, stage })),
        });
        await store.write(record);
        scheduler.dispatch({ type: 'prepared', localId: record.id });
        for (const entry of members)
          scheduler.dispatch({ type: 'enter', id: entry.customId, localId: record.id });
        return { record, members };
      });
    } catch (error) {
      for (const id of scheduler.chunkMembers(chunk)) scheduler.dispatch({ type: 'error', id, error });
      return undefined;
    }
  }

  /** The chunk's requests that are still asked for and that no batch of the run holds or answered. */
  private async unsubmitted(chunk: number): Promise<Entry[]> {
    const { store, scheduler } = this.context;
    const members: Entry[] = [];
    for (const id of scheduler.chunkMembers(chunk)) {
      const entry = this.context.entry(id);
      if (!entry) continue;
      const open = store.openRecordWith(id);
      if (open) scheduler.dispatch({ type: 'attach', id, localId: open.id });
      else if (await this.deliverer.answeredRecordFor(entry)) scheduler.dispatch({ type: 'reroute', id });
      else members.push(entry);
    }
    return members;
  }

  private async create(record: BatchState, members: Entry[]): Promise<void> {
    const { store, backend, retry, scheduler } = this.context;
    const rendered = members.flatMap((entry) => (entry.rendered ? [entry.rendered] : []));
    const since = Date.now();
    try {
      if (backend.upload && !record.inputFileId) {
        const upload = backend.upload.bind(backend);
        record.inputFileId = await retryBatchCall(() => upload(rendered, record.id), retry);
        await store.write(record);
      }
      const batchId = await retryBatchCall(
        () => backend.create(rendered, record.id, record.inputFileId),
        retry,
        () => findOrphan(this.context, record, since),
      );
      const at = this.context.clock.now();
      record.batchId = batchId;
      record.status = 'submitted';
      record.submittedAt = new Date(at).toISOString();
      await store.write(record);
      this.context.emit({
        type: 'submitted',
        localId: record.id,
        batchId,
        requests: record.requests.length,
        bytes: rendered.reduce((sum, entry) => sum + entry.bytes, 0),
        round: record.round,
      });
      scheduler.dispatch({ type: 'created', localId: record.id, batchId, at });
    } catch (error) {
      await this.failed(record, error);
    }
    // The provider holds them now; a request that needs another batch is rendered again.
    for (const entry of members) {
      const state = scheduler.request(entry.customId);
      if (state?.kind === 'in-batch' && state.localId === record.id) entry.rendered = undefined;
    }
  }

  private async failed(record: BatchState, error: unknown): Promise<void> {
    const failure = error instanceof BatchCallError ? error.failure : undefined;
    const reason = this.context.online.redact(failure ? failure.reason : (error as Error).message);
    record.status = 'failed';
    record.error = `submission failed: ${reason}`;
    await this.context.store.write(record).catch(() => undefined);
    const requests = record.requests.length;
    this.context.emit({ type: 'submit_failed', localId: record.id, requests, reason });
    const why: NoAnswer = {
      code: failure?.code ?? 'batch_submit',
      detail: `could not be submitted (${reason})`,
      // A refused submission (400, 404: no batch API at this base URL) fails the same way again.
      resubmit: failure?.retryable ?? false,
      online: true,
      failure,
    };
    this.context.scheduler.dispatch({ type: 'batch-lost', localId: record.id, why });
  }
}

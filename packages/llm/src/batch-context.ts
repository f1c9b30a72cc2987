import type { BatchRetryPolicy } from './batch-retry';
import type { BatchScheduler } from './batch-scheduler';
import type { BatchStateStore } from './batch-state-store';
import type { BatchEvent } from './batching-client';
import type { Clock } from './clock';
import type { CompletionRequest, CompletionResult } from './completion-types';
import type { BatchBackend, BatchEntry } from './provider-adapter';
import type { ProviderClient } from './provider-client';

export interface Waiter {
  resolve: (result: CompletionResult) => void;
  reject: (error: unknown) => void;
  started: number;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/** What the client keeps of a request besides its state: the request, its callers, its rendering. */
export interface Entry {
  customId: string;
  key: string;
  request: CompletionRequest;
  model: string;
  stage: string;
  estimatedInputTokens: number;
  waiters: Waiter[];
  rendered?: BatchEntry;
  /** A collected batch whose stored answer for this request could not be read: not tried again. */
  unreadableFrom?: string;
}

/** What the submitter, poller and deliverer share with the client. */
export interface BatchContext {
  readonly online: ProviderClient;
  readonly backend: BatchBackend;
  readonly store: BatchStateStore;
  readonly retry: BatchRetryPolicy;
  readonly clock: Clock;
  readonly scheduler: BatchScheduler;
  readonly judgeId: string;
  /** The entry of a request the scheduler holds. */
  entry(id: string): Entry | undefined;
  emit(event: BatchEvent): void;
}

/** The entry of a request while the given batch holds it. */
export function memberEntry(context: BatchContext, id: string, localId: string): Entry | undefined {
  const state = context.scheduler.request(id);
  return state?.kind === 'in-batch' && state.localId === localId ? context.entry(id) : undefined;
}

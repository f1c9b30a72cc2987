import type { StageEvent } from '@xsb/core';
import type { JobEventListener } from './job-runner';

/**
 * The stage events of the jobs this process runs, by job: a runner publishes into it (its `onEvent`)
 * and each server-sent event stream of a job subscribes to that job. Events of a job nobody listens
 * to are dropped; a subscriber gets those published after it subscribed.
 */
export class JobEvents {
  private readonly listeners = new Map<string, Set<(event: StageEvent) => void>>();

  readonly publish: JobEventListener = (jobId, event) => {
    for (const listener of this.listeners.get(jobId) ?? []) listener(event);
  };

  /** Calls `listener` with each event of the job until the returned function is called. */
  subscribe(jobId: string, listener: (event: StageEvent) => void): () => void {
    const set = this.listeners.get(jobId) ?? new Set();
    set.add(listener);
    this.listeners.set(jobId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(jobId);
    };
  }
}

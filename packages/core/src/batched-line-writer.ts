/** Lines that leave in one write per turn of the event loop. */
export interface BatchedLineWriter {
  /** Queues `text` and a newline; they are written after the current turn of the event loop. */
  line(text: string): void;
  /** Writes what is queued now (before exit, so no line is lost). */
  flush(): void;
}

/**
 * A writer for a log that may get a line per request: 200 requests answered in one turn of the event
 * loop would be 200 system calls, and on two cores those writes cost a busy server more than the
 * requests themselves. Lines keep their order; a line waits at most one turn.
 */
export function createBatchedLineWriter(write: (text: string) => void): BatchedLineWriter {
  let pending: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    write(text);
  };
  return {
    line(text) {
      pending.push(`${text}\n`);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

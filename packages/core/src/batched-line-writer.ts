export interface BatchedLineWriter {
  line(text: string): void;
  /** Before exit, so no line is lost. */
  flush(): void;
}

/** One write per turn of the event loop: a write per request costs a busy server more than the requests. */
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

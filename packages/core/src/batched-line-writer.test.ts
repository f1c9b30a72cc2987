import { describe, expect, it } from 'vitest';
import { createBatchedLineWriter } from './batched-line-writer';

describe('createBatchedLineWriter', () => {
  it('writes the lines of one turn of the event loop in one write, in order', async () => {
    const writes: string[] = [];
    const writer = createBatchedLineWriter((text) => writes.push(text));
    for (let i = 0; i < 200; i++) writer.line(`GET /v1/jobs/${i} 200`);
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(1);
    expect(writes[0]!.split('\n')).toEqual([
      ...Array.from({ length: 200 }, (_, i) => `GET /v1/jobs/${i} 200`),
      '',
    ]);
    writer.line('later');
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([writes[0], 'later\n']);
  });

  it('flushes what is queued on demand, and a flush with nothing queued writes nothing', () => {
    const writes: string[] = [];
    const writer = createBatchedLineWriter((text) => writes.push(text));
    writer.line('a');
    writer.line('b');
    writer.flush();
    writer.flush();
    expect(writes).toEqual(['a\nb\n']);
  });
});

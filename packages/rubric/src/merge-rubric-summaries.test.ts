import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MergePart } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rubricSummaryCombiner } from './merge-rubric-summaries';
import { summarizeRubricRun } from './run-rubric';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-rubric-merge-'));
});
afterEach(() => cleanup());

const row = (id: string) => ({
  instance_id: id,
  category: 'education' as const,
  deck_path: null,
  status: 'evaluated' as const,
  error: null,
  paper_total_percent: null,
  presentbench_total_percent: null,
  error_count: 0,
  not_judged_count: 3,
  presentbench_result: null,
  presentbench_score: null,
});

async function shard(index: number, system: string | undefined): Promise<MergePart> {
  const path = `xsb_rubric_summary_lexical.shard-${index}-of-2.json`;
  const file = join(dir, path);
  const summary = {
    ...summarizeRubricRun([row(`case${index}`)], 'lexical', 'strict', system),
    shard: { index, count: 2, instances: ['case0', 'case1'] },
  };
  await writeFile(file, JSON.stringify(summary));
  return { tree: dir, path, file };
}

describe('rubricSummaryCombiner', () => {
  it("keeps the shards' --system in the merged summary, and will not merge shards of different systems", async () => {
    const merged = await rubricSummaryCombiner.combine('xsb_rubric_summary_lexical.json', [
      await shard(0, 'My Generator'),
      await shard(1, 'My Generator'),
    ]);
    const summary = JSON.parse(Buffer.from(merged as Uint8Array).toString('utf8'));
    expect(summary.system).toBe('My Generator');
    expect(summary.rows.map((r: { instance_id: string }) => r.instance_id)).toEqual(['case0', 'case1']);
    const mixed = await rubricSummaryCombiner.combine('xsb_rubric_summary_lexical.json', [
      await shard(0, 'My Generator'),
      await shard(1, 'Other'),
    ]);
    expect(mixed).toBeUndefined();
  });
});

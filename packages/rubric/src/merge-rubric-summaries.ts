import { readJson, type ShardFileCombiner } from '@xsb/core';
import { summarizeRubricRun } from './run-rubric';
import { rubricRunSummarySchema } from './schemas/rubric-evaluation';

const SHARD_SUMMARY = /^(.*\/)?(xsb_rubric_summary_[^/]+)\.shard-(\d+)-of-(\d+)\.json$/;

/**
 * `xsb merge`: the shard summaries of one `xsb rubric run --shard i/n` (one per shard, all n) become
 * the `xsb_rubric_summary_<judge>.json` the unsharded run writes: rows in the run's instance order
 * (each shard summary lists every instance id), means recomputed by the run's own rule. Shards of
 * different judges, parsers, systems or shard counts, or a missing shard, make no whole: the parts are kept.
 */
export const rubricSummaryCombiner: ShardFileCombiner = {
  name: 'rubric run summaries',
  targetOf(path) {
    const match = SHARD_SUMMARY.exec(path);
    return match ? `${match[1] ?? ''}${match[2]}.json` : undefined;
  },
  async combine(_target, parts) {
    const summaries = await Promise.all(parts.map((part) => readJson(part.file, rubricRunSummarySchema)));
    const [first] = summaries;
    const count = first?.shard?.count;
    if (!first || count === undefined || summaries.length !== count) return undefined;
    const indices = new Set(summaries.map((summary) => summary.shard?.index));
    const order = JSON.stringify(first.shard?.instances);
    const alike = summaries.every(
      (summary) =>
        summary.shard?.count === count &&
        summary.judge === first.judge &&
        summary.parser === first.parser &&
        summary.system === first.system &&
        JSON.stringify(summary.shard.instances) === order,
    );
    if (!alike || indices.size !== count) return undefined;
    const position = new Map<string, number>();
    for (const [index, id] of (first.shard?.instances ?? []).entries())
      if (!position.has(id)) position.set(id, index);
    const rows = summaries
      .flatMap((summary) => summary.rows)
      .map((row, index) => ({ row, index }))
      .sort(
        (a, b) =>
          (position.get(a.row.instance_id) ?? Number.MAX_SAFE_INTEGER) -
            (position.get(b.row.instance_id) ?? Number.MAX_SAFE_INTEGER) || a.index - b.index,
      )
      .map(({ row }) => row);
    const summary = rubricRunSummarySchema.parse(
      summarizeRubricRun(rows, first.judge, first.parser, first.system),
    );
    // The same bytes `writeJson` gives the unsharded run's summary.
    return Buffer.from(`${JSON.stringify(summary, null, 2)}\n`);
  },
};

import { readJson, type ShardFileCombiner, validateRecord } from '@xsb/core';
import { type DeckBatchSummary, type DeckRowStatus, deckBatchSummarySchema } from './schemas/deck-run-status';

/** A batch's done, skipped and failed rows. */
export function outcomeCounts(rows: readonly DeckRowStatus[]) {
  const count = (status: DeckRowStatus['status']) => rows.filter((row) => row.status === status).length;
  return { done: count('done'), skipped: count('skipped'), failed: count('failed') };
}

const SHARD_SUMMARY = /^(.*\/)?batch_summary\.shard-(\d+)-of-(\d+)\.json$/;

/** `xsb merge`: all n shards' batch summaries become the one the unsharded run writes. */
export const deckBatchSummaryCombiner: ShardFileCombiner = {
  name: 'deck batch summaries',
  targetOf(path) {
    const match = SHARD_SUMMARY.exec(path);
    return match ? `${match[1] ?? ''}batch_summary.json` : undefined;
  },
  async combine(target, parts) {
    const shards = await Promise.all(
      parts.map(async (part) => ({
        summary: await readJson(part.file, deckBatchSummarySchema),
        tag: SHARD_SUMMARY.exec(part.path)!,
      })),
    );
    const count = Number(shards[0]?.tag[3]);
    const indices = new Set(shards.map(({ tag }) => Number(tag[2])));
    const [first] = shards.map(({ summary }) => summary);
    if (
      !first ||
      shards.length !== count ||
      indices.size !== count ||
      shards.some(
        ({ summary, tag }) =>
          Number(tag[3]) !== count ||
          summary.run_sheet !== first.run_sheet ||
          summary.rows_total !== first.rows_total ||
          summary.shard !== `${tag[2]}/${tag[3]}`,
      )
    )
      return undefined;
    // A sheet line every shard reports is an invalid row (no shard can select it); any other line
    // belongs to exactly one shard.
    const seen = new Map<number, number>();
    for (const { summary } of shards)
      for (const row of summary.rows) seen.set(row.line ?? -1, (seen.get(row.line ?? -1) ?? 0) + 1);
    const isInvalid = (row: DeckRowStatus) => count > 1 && seen.get(row.line ?? -1) === count;
    const invalid = first.rows.filter(isInvalid);
    const selected = shards
      .flatMap(({ summary }) => summary.rows.filter((row) => !isInvalid(row)))
      .sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    const rows = [...invalid, ...selected];
    const merged: DeckBatchSummary = {
      run_sheet: first.run_sheet,
      rows_total: first.rows_total,
      rows_selected: rows.length,
      ...outcomeCounts(rows),
      shard: null,
      rows,
    };
    // The bytes `writeJson` gives the unsharded run's summary.
    const value = validateRecord(deckBatchSummarySchema, merged, { file: target });
    return Buffer.from(`${JSON.stringify(value, null, 2)}\n`);
  },
};

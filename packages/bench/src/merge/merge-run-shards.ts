import {
  type MergeReport,
  type MergeShardTreesOptions,
  mergeShardTrees,
  type ShardFileCombiner,
} from '@xsb/core';
import { deckBatchSummaryCombiner } from '@xsb/decks';
import { rubricSummaryCombiner } from '@xsb/rubric';

/**
 * The per-shard files xsb's stages write, and how each becomes its unsharded file: the deck batch
 * summaries of `xsb decks … --shard` and the run summaries of `xsb rubric run --shard`. (Every other
 * sharded stage writes per-case files only; a bench run of a shard is its own run folder.)
 */
export const SHARD_FILE_COMBINERS: readonly ShardFileCombiner[] = [
  deckBatchSummaryCombiner,
  rubricSummaryCombiner,
];

/**
 * `xsb merge --into D SHARD_DIR…`: core's {@link mergeShardTrees} with xsb's shard file combiners,
 * so the merged data folder is the one an unsharded run writes (see docs/ci-matrix.md).
 */
export function mergeRunShards(options: Omit<MergeShardTreesOptions, 'combiners'>): Promise<MergeReport> {
  return mergeShardTrees({ ...options, combiners: SHARD_FILE_COMBINERS });
}

import { createHash } from 'node:crypto';
import { UsageError } from './errors';

/** `--shard i/n` with 0 <= i < n. */
export interface Shard {
  index: number;
  count: number;
}

/** As the Python original: `int(hashlib.md5(label.encode()).hexdigest(), 16) % count` (all 128 bits). */
export function shardOfCase(caseLabel: string, count: number): number {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`shard count must be >= 1, got ${count}`);
  const digest = createHash('md5').update(caseLabel, 'utf8').digest('hex');
  return Number(BigInt(`0x${digest}`) % BigInt(count));
}

export function isCaseInShard(caseLabel: string, shard: Shard | undefined): boolean {
  return shard === undefined || shardOfCase(caseLabel, shard.count) === shard.index;
}

/** `name` is how the caller's user knows the value (a CLI passes its flag). */
export function parseShard(value: string, name = 'shard'): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(value.trim());
  if (!match) throw new UsageError(`${name} must look like i/n (e.g. 0/4), got ${JSON.stringify(value)}`);
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (count < 1 || index >= count)
    throw new UsageError(`${name} ${value}: the index must be at least 0 and below the shard count`);
  return { index, count };
}

/** `i/n`, as records say which shard made them. */
export function shardLabel(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

/** The part a per-shard file name carries, so parallel shards never write one file. */
export function shardFileTag(shard: Shard): string {
  return `shard-${shard.index}-of-${shard.count}`;
}

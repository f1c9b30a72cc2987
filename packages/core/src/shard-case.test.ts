import { describe, expect, it } from 'vitest';
import { isCaseInShard, parseShard, shardFileTag, shardLabel, shardOfCase } from './shard-case';

// Computed with python3: int(hashlib.md5(label.encode()).hexdigest(), 16) % n for n = 8, 3, 5.
const PYTHON_VECTORS: Array<[string, number, number, number]> = [
  ['case_000', 4, 1, 0],
  ['case_001', 4, 0, 1],
  ['case_042', 0, 2, 4],
  ['paper-attention', 6, 0, 0],
  ['深度学习', 3, 1, 3],
  ['', 6, 0, 1],
  ['a'.repeat(50), 7, 1, 3],
  ['Case 7', 0, 2, 2],
  ['report_2024_q3', 1, 1, 1],
  ['ünïcödé', 0, 2, 0],
];

describe('shardOfCase', () => {
  it('matches Python over the full 128-bit md5 digest', () => {
    for (const [label, mod8, mod3, mod5] of PYTHON_VECTORS) {
      expect([shardOfCase(label, 8), shardOfCase(label, 3), shardOfCase(label, 5)], label).toEqual([
        mod8,
        mod3,
        mod5,
      ]);
    }
  });

  it('puts each of 1,000 labels on exactly one of 8 shards, in the counts Python gives', () => {
    const labels = Array.from({ length: 1000 }, (_, index) => `case_${String(index).padStart(4, '0')}`);
    const counts = Array.from({ length: 8 }, () => 0);
    for (const label of labels) {
      const owners = Array.from({ length: 8 }, (_, index) => index).filter((index) =>
        isCaseInShard(label, { index, count: 8 }),
      );
      expect(owners).toHaveLength(1);
      counts[owners[0] as number] = (counts[owners[0] as number] ?? 0) + 1;
    }
    expect(counts).toEqual([101, 135, 117, 137, 124, 121, 134, 131]);
  });

  it('parses --shard i/n and refuses out-of-range values', () => {
    expect(parseShard('2/8')).toEqual({ index: 2, count: 8 });
    expect(() => parseShard('8/8')).toThrow(/below the shard count/);
    expect(() => parseShard('x')).toThrow(/i\/n/);
    expect(() => parseShard('1/0')).toThrow(/below the shard count/);
    expect(() => parseShard('-1/3')).toThrow(/i\/n/);
    expect(shardLabel({ index: 2, count: 8 })).toBe('2/8');
    expect(shardFileTag({ index: 2, count: 8 })).toBe('shard-2-of-8');
  });
});

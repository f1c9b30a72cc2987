import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError, UsageError } from './errors';
import { type MergePart, mergeShardTrees, type ShardFileCombiner } from './merge-shard-trees';
import { makeTempDir } from './testing';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-merge-'));
});
afterEach(() => cleanup());

async function put(tree: string, files: Record<string, string>): Promise<string> {
  const root = join(dir, tree);
  await mkdir(root, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

/** Every file of a tree, path → text. */
async function tree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const visit = async (folder: string) => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const file = join(folder, entry.name);
      if (entry.isDirectory()) await visit(file);
      else out[relative(root, file)] = await readFile(file, 'utf8');
    }
  };
  if (existsSync(root)) await visit(root);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

const ledgerLine = (time: string, stage: string) => `{"time":"${time}","stage":"${stage}","ok":true}`;

/** Combines `summary.shard-i-of-n.json` parts (`{"rows": [...]}`) into `summary.json` when all n are there. */
const summaries: ShardFileCombiner = {
  name: 'test summaries',
  targetOf: (path) => (/^summary\.shard-\d+-of-\d+\.json$/.test(path) ? 'summary.json' : undefined),
  async combine(_target, parts: readonly MergePart[]) {
    const count = Number(/-of-(\d+)/.exec(parts[0]!.path)![1]);
    if (parts.length !== count) return undefined;
    const rows: string[] = [];
    for (const part of parts) rows.push(...JSON.parse(await readFile(part.file, 'utf8')).rows);
    return Buffer.from(JSON.stringify({ rows: rows.sort() }));
  },
};

describe('mergeShardTrees', () => {
  it('copies shared files once, concatenates ledgers in time order, and gives the same tree for any shard order', async () => {
    const a = await put('a', {
      'probes/c1/probes.jsonl': 'c1 probes\n',
      'sources/shared.txt': 'same everywhere',
      'runs/r/usage_ledger.jsonl': `${ledgerLine('2026-01-01T00:00:03.000Z', 'eval')}\n${ledgerLine('2026-01-01T00:00:03.000Z', 'eval')}\n`,
    });
    const b = await put('b', {
      'probes/c2/probes.jsonl': 'c2 probes\n',
      'sources/shared.txt': 'same everywhere',
      'runs/r/usage_ledger.jsonl': `${ledgerLine('2026-01-01T00:00:01.000Z', 'probes')}\n\n`,
    });
    const c = await put('c', {
      'runs/r/usage_ledger.jsonl': `${ledgerLine('2026-01-01T00:00:02.000Z', 'weights')}\n`,
    });
    const first = await mergeShardTrees({ into: join(dir, 'd1'), shards: [a, b, c] });
    await mergeShardTrees({ into: join(dir, 'd2'), shards: [c, a, b] });
    const merged = await tree(join(dir, 'd1'));
    expect(await tree(join(dir, 'd2'))).toEqual(merged);
    expect(merged).toEqual({
      'probes/c1/probes.jsonl': 'c1 probes\n',
      'probes/c2/probes.jsonl': 'c2 probes\n',
      // Two identical lines of one shard are two calls: both stay.
      'runs/r/usage_ledger.jsonl': [
        ledgerLine('2026-01-01T00:00:01.000Z', 'probes'),
        ledgerLine('2026-01-01T00:00:02.000Z', 'weights'),
        ledgerLine('2026-01-01T00:00:03.000Z', 'eval'),
        ledgerLine('2026-01-01T00:00:03.000Z', 'eval'),
        '',
      ].join('\n'),
      'sources/shared.txt': 'same everywhere',
    });
    expect(first.identical).toBe(1);
    expect(first.concatenated).toEqual([{ path: 'runs/r/usage_ledger.jsonl', lines: 4, added: 4 }]);

    // Merging the same shards again changes nothing: no ledger line is counted twice.
    const again = await mergeShardTrees({ into: join(dir, 'd1'), shards: [b, a, c] });
    expect(await tree(join(dir, 'd1'))).toEqual(merged);
    expect(again.written).toBe(0);
    // A shard whose ledger grew since it was merged adds only its new lines.
    await writeFile(
      join(c, 'runs/r/usage_ledger.jsonl'),
      `${ledgerLine('2026-01-01T00:00:02.000Z', 'weights')}\n${ledgerLine('2026-01-01T00:00:09.000Z', 'late')}\n`,
    );
    const grown = await mergeShardTrees({ into: join(dir, 'd1'), shards: [c] });
    expect(grown.concatenated[0]).toMatchObject({ lines: 5, added: 1 });
    expect((await readFile(join(dir, 'd1/runs/r/usage_ledger.jsonl'), 'utf8')).split('\n')[4]).toBe(
      ledgerLine('2026-01-01T00:00:09.000Z', 'late'),
    );
  });

  it('refuses the same path with different bytes, naming both files, and writes nothing', async () => {
    const a = await put('a', { 'probes/c1/probes.jsonl': 'one\n', 'x/a-only.txt': 'a' });
    const b = await put('b', { 'probes/c1/probes.jsonl': 'two\n' });
    const into = join(dir, 'd');
    const failure = await mergeShardTrees({ into, shards: [a, b] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InputError);
    expect((failure as Error).message).toContain(
      `probes/c1/probes.jsonl differs between ${join(a, 'probes/c1/probes.jsonl')} and ${join(b, 'probes/c1/probes.jsonl')}`,
    );
    expect((failure as Error).message).toMatch(/nothing was written/);
    expect(existsSync(into)).toBe(false);

    // The --into folder's own files take part: an existing file with other bytes is a conflict too.
    const d = await put('existing', { 'x/a-only.txt': 'other', 'kept.txt': 'mine' });
    await expect(mergeShardTrees({ into: d, shards: [a] })).rejects.toThrow(
      `x/a-only.txt differs between ${join(d, 'x/a-only.txt')} and ${join(a, 'x/a-only.txt')}`,
    );
    expect(await tree(d)).toEqual({ 'kept.txt': 'mine', 'x/a-only.txt': 'other' });
    // … and one with the same bytes is simply there already.
    const same = await put('same', { 'x/a-only.txt': 'a' });
    const report = await mergeShardTrees({ into: same, shards: [await put('a2', { 'x/a-only.txt': 'a' })] });
    expect(report).toMatchObject({ written: 0, identical: 1 });
  });

  it('never copies lock folders or temp files, and refuses symbolic links', async () => {
    const a = await put('a', {
      'runs/r/.xsb.lock/holder.json': '{"pid":1}',
      'runs/r/batches/.xsb.lock.stale-1a2b/holder.json': '{}',
      'runs/r/.metrics.json.123.abcdef.tmp': 'half',
      'runs/r/metrics.json': '{}',
    });
    const report = await mergeShardTrees({ into: join(dir, 'd'), shards: [a] });
    expect(Object.keys(await tree(join(dir, 'd')))).toEqual(['runs/r/metrics.json']);
    expect(report.skipped).toEqual([
      'runs/r/.metrics.json.123.abcdef.tmp',
      'runs/r/.xsb.lock',
      'runs/r/batches/.xsb.lock.stale-1a2b',
    ]);
    await symlink('/etc/passwd', join(a, 'runs/r/evil'));
    await expect(mergeShardTrees({ into: join(dir, 'd2'), shards: [a] })).rejects.toThrow(
      `${join(a, 'runs/r/evil')}: is a symbolic link`,
    );
  });

  it('keeps one pending prompt per key and names a ledger line that is not JSON', async () => {
    const a = await put('a', {
      'store.pending.jsonl': '{"key":"k2","prompt":"b"}\n{"key":"k1","prompt":"a"}\n',
    });
    const b = await put('b', {
      'store.pending.jsonl': '{"key":"k1","prompt":"a"}\n{"key":"k3","prompt":"c"}\n',
    });
    await mergeShardTrees({ into: join(dir, 'd'), shards: [a, b] });
    expect(await readFile(join(dir, 'd/store.pending.jsonl'), 'utf8')).toBe(
      '{"key":"k1","prompt":"a"}\n{"key":"k2","prompt":"b"}\n{"key":"k3","prompt":"c"}\n',
    );
    const bad = await put('bad', { 'runs/r/usage_ledger.jsonl': '{"time":"t"}\nnot json\n' });
    await expect(mergeShardTrees({ into: join(dir, 'e'), shards: [bad] })).rejects.toThrow(
      `${join(bad, 'runs/r/usage_ledger.jsonl')}: line 2 is not JSON`,
    );
  });

  it('combines per-shard files into the unsharded file when they make a whole, else copies them', async () => {
    const shard = (i: number, rows: string[]) =>
      put(`s${i}`, { [`summary.shard-${i}-of-3.json`]: JSON.stringify({ rows }) });
    const parts = [await shard(0, ['c']), await shard(1, ['a']), await shard(2, ['b'])];
    const report = await mergeShardTrees({ into: join(dir, 'd'), shards: parts, combiners: [summaries] });
    expect(await tree(join(dir, 'd'))).toEqual({ 'summary.json': '{"rows":["a","b","c"]}' });
    expect(report.combined).toEqual([
      {
        path: 'summary.json',
        parts: ['summary.shard-0-of-3.json', 'summary.shard-1-of-3.json', 'summary.shard-2-of-3.json'],
      },
    ]);
    // Two of three shards do not make a whole: their parts are kept as they are …
    await mergeShardTrees({ into: join(dir, 'partial'), shards: parts.slice(0, 2), combiners: [summaries] });
    expect(Object.keys(await tree(join(dir, 'partial')))).toEqual([
      'summary.shard-0-of-3.json',
      'summary.shard-1-of-3.json',
    ]);
    // … and the last one completes them later, leaving only the whole.
    await mergeShardTrees({ into: join(dir, 'partial'), shards: [parts[2]!], combiners: [summaries] });
    expect(await tree(join(dir, 'partial'))).toEqual({ 'summary.json': '{"rows":["a","b","c"]}' });
    // A target the --into folder holds with other content is a conflict.
    const other = await put('other', { 'summary.json': '{"rows":["x"]}' });
    await expect(mergeShardTrees({ into: other, shards: parts, combiners: [summaries] })).rejects.toThrow(
      /summary\.json: .* differs from what its shard parts/,
    );
  });

  it('refuses a file where another tree has a folder, and bad folder arguments', async () => {
    const a = await put('a', { 'runs/r': 'a file' });
    const b = await put('b', { 'runs/r/metrics.json': '{}' });
    await expect(mergeShardTrees({ into: join(dir, 'd'), shards: [a, b] })).rejects.toThrow(
      /runs\/r is a file but .* needs runs\/r to be a folder/,
    );
    await expect(mergeShardTrees({ into: join(dir, 'd'), shards: [] })).rejects.toThrow(UsageError);
    await expect(mergeShardTrees({ into: join(a, 'inside'), shards: [a] })).rejects.toThrow(
      /must not contain one another/,
    );
    await expect(mergeShardTrees({ into: join(dir, 'd'), shards: [a, a] })).rejects.toThrow(/named twice/);
    await expect(mergeShardTrees({ into: join(dir, 'd'), shards: [join(dir, 'nope')] })).rejects.toThrow(
      /shard folder .*nope does not exist/,
    );
    expect(existsSync(join(dir, 'd'))).toBe(false);
  });
});

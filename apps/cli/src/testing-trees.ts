import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/**
 * Every file under `root` (path `/`-separated → bytes), in sorted order, without the paths `skip`
 * refuses. For comparing two runs' trees byte for byte.
 */
export async function readTree(
  root: string,
  skip: (path: string) => boolean = () => false,
): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  if (!existsSync(root)) return files;
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const paths = entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .filter((path) => !skip(path))
    .sort();
  for (const path of paths) files.set(path, await readFile(join(root, path)));
  return files;
}

/** `run_manifest.json` without `created_at`: the one field of an evaluation that holds the time it ran. */
export function withoutCreatedAt(bytes: Buffer): string {
  const { created_at: _time, ...rest } = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  return JSON.stringify(rest, null, 2);
}

/**
 * The paths where two trees differ (missing on one side, or other bytes); `normalize` may map a
 * file's bytes to what is compared (e.g. drop a time field).
 */
export function treeDifferences(
  a: Map<string, Buffer>,
  b: Map<string, Buffer>,
  normalize: (path: string, bytes: Buffer) => string | Buffer = (_path, bytes) => bytes,
): string[] {
  const differences: string[] = [];
  for (const path of new Set([...a.keys(), ...b.keys()])) {
    const left = a.get(path);
    const right = b.get(path);
    if (!left || !right) differences.push(`${path} only in ${left ? 'the first' : 'the second'} tree`);
    else {
      const x = normalize(path, left);
      const y = normalize(path, right);
      const same = typeof x === 'string' || typeof y === 'string' ? String(x) === String(y) : x.equals(y);
      if (!same) differences.push(`${path} differs`);
    }
  }
  return differences.sort();
}

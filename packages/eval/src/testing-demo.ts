import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runDemo } from './run-demo';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const CACHE = join(REPO_ROOT, 'node_modules', '.cache', 'xsb-test-demo');

/** The files under `dir` (recursively) that are not tests, in a stable order. */
async function inputFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && !entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/**
 * A hash of everything the offline demo's output can depend on: every package's sources (tests aside),
 * the fixtures, the lockfile and the Node version. A change to any of them builds the demo anew.
 */
export async function demoInputsHash(): Promise<string> {
  const hash = createHash('sha256').update(process.version);
  const packages = join(REPO_ROOT, 'packages');
  const sourceDirs = (await readdir(packages)).map((name) => join(packages, name, 'src'));
  const files = [join(REPO_ROOT, 'pnpm-lock.yaml')];
  for (const dir of [join(REPO_ROOT, 'fixtures'), ...sourceDirs])
    files.push(...(await inputFiles(dir).catch(() => [])));
  for (const file of files)
    hash
      .update(relative(REPO_ROOT, file))
      .update('\0')
      .update(await readFile(file));
  return hash.digest('hex').slice(0, 24);
}

/**
 * The offline demo (`runDemo({ outDir })`, lexical judge, the shipped fixtures) copied into `outDir`.
 * Its tree is immutable for given inputs and relocatable (no absolute path of its own inside), so it is
 * built once per content hash and kept under node_modules/.cache: test files that only need demo data
 * copy it instead of running stages 1–7 again (~10–15 s of CPU each). A concurrent build by another
 * test process is harmless: each builds in its own folder and the first rename wins.
 */
export async function copyOfflineDemo(outDir: string): Promise<{ dataDir: string }> {
  const cached = join(CACHE, await demoInputsHash());
  const ready = await readdir(cached).then(
    () => true,
    () => false,
  );
  if (!ready) {
    await mkdir(CACHE, { recursive: true });
    const building = await mkdtemp(join(CACHE, 'building-'));
    try {
      await runDemo({ outDir: building });
      await rename(building, cached).catch(() => undefined);
    } finally {
      await rm(building, { recursive: true, force: true });
    }
  }
  await cp(cached, outDir, { recursive: true });
  return { dataDir: join(outDir, 'data') };
}

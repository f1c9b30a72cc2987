import { execFile } from 'node:child_process';
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { makeTempDir } from '@xsb/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT, repoFixture } from './testing-fixtures';
import { readTree, treeDifferences, withoutCreatedAt } from './testing-trees';
import { serveXsbOnPath, type XsbOnPath } from './testing-xsb-on-path';

/**
 * docs/ci-matrix.md's GitHub Actions workflow and shell loop, taken out of the page and run here (not on
 * GitHub) with n = 3 over the three fixture cases and the offline lexical judge: each merged result must
 * equal an unsharded run of the same commands.
 */

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string>;
  env?: Record<string, string | number>;
}
interface Job {
  strategy?: { matrix: { shard: number[] } };
  env?: Record<string, string | number>;
  steps: Step[];
}
interface Workflow {
  env: Record<string, string | number>;
  jobs: { shard: Job; merge: Job };
}

const exec = promisify(execFile);
const page = () => readFile(join(REPO_ROOT, 'docs', 'ci-matrix.md'), 'utf8');
const fenced = (text: string, lang: string): string[] =>
  [...text.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((match) => match[1] ?? '');

let root: string;
let cleanup: () => Promise<void>;
let xsb: XsbOnPath;

/** A repository checkout as the workflow expects it: `data/sources/<case>/…` and `data/run_sheet.csv`. */
async function checkout(dir: string): Promise<string> {
  await mkdir(join(dir, 'data'), { recursive: true });
  await cp(repoFixture('sources'), join(dir, 'data', 'sources'), { recursive: true });
  const sheet = (await readFile(repoFixture('run-sheets', 'baseline.csv'), 'utf8')).replaceAll(
    '../sources/',
    'sources/',
  );
  await writeFile(join(dir, 'data', 'run_sheet.csv'), sheet);
  return dir;
}

/**
 * Runs a script with bash as a runner would: `xsb` on PATH (each call runs the CLI in this process, so
 * the 40-odd commands load it once), a sealed HOME and cache.
 */
async function bash(script: string, cwd: string, env: Record<string, string>): Promise<void> {
  try {
    await exec('bash', ['-e', '-c', script], {
      cwd,
      env: {
        PATH: `${xsb.bin}:${process.env.PATH ?? ''}`,
        HOME: cwd,
        XDG_CACHE_HOME: join(cwd, '.cache'),
        ...env,
      },
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`script failed in ${cwd}:\n${script}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`);
  }
}

/** `${{ matrix.shard }}`, `${{ env.X }}`, `${{ secrets.X }}` (empty here) and `${{ steps… }}` of a workflow value. */
function expand(value: string | number, context: { shard?: number; env: Record<string, string> }): string {
  return String(value).replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_all, name: string) => {
    if (name === 'matrix.shard' && context.shard !== undefined) return String(context.shard);
    if (name.startsWith('env.')) return context.env[name.slice(4)] ?? '';
    if (name.startsWith('secrets.') || name.startsWith('steps.')) return '';
    throw new Error(`the test does not know the expression ${name}`);
  });
}

/** Copies a folder as `actions/upload-artifact@v4` uploads it: without hidden files. */
async function copyWithoutHidden(from: string, to: string): Promise<void> {
  const entries = await readdir(from, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = relative(from, join(entry.parentPath, entry.name));
    if (path.split(sep).some((part) => part.startsWith('.'))) continue;
    await mkdir(join(to, relative(from, entry.parentPath)), { recursive: true });
    await cp(join(from, path), join(to, path));
  }
}

/** Plays one job: checkout, `run` steps, artifact upload/download against a local artifact store. */
async function playJob(
  job: Job,
  workflow: Workflow,
  options: { dir: string; artifacts: string; shard?: number; skip?: (step: Step) => boolean },
): Promise<string[]> {
  const ran: string[] = [];
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...workflow.env, ...job.env }))
    env[key] = expand(value, { env });
  for (const step of job.steps) {
    const label = step.name ?? step.uses ?? step.run ?? '';
    if (options.skip?.(step)) continue;
    const inputs = Object.fromEntries(
      Object.entries(step.with ?? {}).map(([key, value]) => [
        key,
        expand(value, { env, shard: options.shard }),
      ]),
    );
    if (step.uses?.startsWith('actions/checkout@')) await checkout(options.dir);
    else if (step.uses?.startsWith('actions/upload-artifact@'))
      await copyWithoutHidden(
        join(options.dir, inputs.path ?? ''),
        join(options.artifacts, inputs.name ?? ''),
      );
    else if (step.uses?.startsWith('actions/download-artifact@')) {
      const pattern = new RegExp(`^${(inputs.pattern ?? '*').replaceAll('*', '.*')}$`);
      for (const name of (await readdir(options.artifacts)).filter((item) => pattern.test(item)))
        await cp(join(options.artifacts, name), join(options.dir, inputs.path ?? '.', name), {
          recursive: true,
        });
    } else if (step.run !== undefined) {
      const stepEnv = { ...env };
      for (const [key, value] of Object.entries(step.env ?? {}))
        stepEnv[key] = expand(value, { env, shard: options.shard });
      await bash(step.run, options.dir, stepEnv);
    } else continue; // setup and Pages actions: nothing of xsb's to run here
    ran.push(label);
  }
  return ran;
}

const isSetup = (step: Step) => step.name === 'Set up xsb';
/**
 * The artifacts and summary of a data folder; ledgers and logs record how a run went, not what it
 * found, and `report_cache/` holds the HTML report's thumbnails (built in the merge job only).
 */
const artifactsOf = (dataDir: string) =>
  readTree(
    dataDir,
    (path) => path.endsWith('usage_ledger.jsonl') || path.endsWith('.log') || path.includes('/report_cache/'),
  );
const sameUpToTime = (path: string, bytes: Buffer) =>
  path.endsWith('run_manifest.json') ? withoutCreatedAt(bytes) : bytes;

let unsharded: Map<string, Buffer>;

beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-ci-matrix-'));
  xsb = await serveXsbOnPath(root);
  // The unsharded run: the shard job's commands once, without --shard, then aggregate.
  const workflow = parse(fenced(await page(), 'yaml')[0] ?? '') as Workflow;
  const stages = workflow.jobs.shard.steps.find((step) => step.name === 'Stages 1-5 on one shard')?.run ?? '';
  expect(stages).toContain('--shard "$SHARD"');
  const dir = await checkout(join(root, 'unsharded'));
  await bash(`${stages.replaceAll(' --shard "$SHARD"', '')}\nxsb aggregate --data data --run "$RUN"`, dir, {
    RUN: String(workflow.env.RUN),
    JUDGE: 'lexical',
  });
  unsharded = await artifactsOf(join(dir, 'data'));
}, 240_000);
afterAll(async () => {
  await xsb?.close();
  await cleanup();
});

describe('docs/ci-matrix.md', () => {
  it('the workflow: 3 shard jobs, each uploading its tree, then merge + aggregate equal the unsharded run', async () => {
    const workflow = parse(fenced(await page(), 'yaml')[0] ?? '') as Workflow;
    expect(workflow.env.JUDGE).toBe('lexical');
    const shards = workflow.jobs.shard.strategy?.matrix.shard ?? [];
    expect(shards).toEqual([0, 1, 2]);
    expect(Number(workflow.env.SHARDS)).toBe(shards.length);
    const artifacts = join(root, 'workflow-artifacts');
    await mkdir(artifacts);
    for (const shard of shards) {
      const ran = await playJob(workflow.jobs.shard, workflow, {
        dir: join(root, `workflow-shard-${shard}`),
        artifacts,
        shard,
        skip: isSetup,
      });
      expect(ran).toContain('Stages 1-5 on one shard');
      expect(ran.some((label) => label.startsWith('actions/upload-artifact'))).toBe(true);
    }
    expect((await readdir(artifacts)).sort()).toEqual(['shard-0', 'shard-1', 'shard-2']);
    // The shards split the cases: each deck is in exactly one shard's tree (cs_raft_consensus in shard 2,
    // the other two in shard 1, none in shard 0 by md5 % 3).
    const decksIn = async (shard: number) =>
      [...(await readTree(join(artifacts, `shard-${shard}`))).keys()].filter((path) =>
        path.endsWith('.pptx'),
      );
    expect(await decksIn(0)).toEqual([]);
    expect((await decksIn(2)).every((path) => path.includes('cs_raft_consensus'))).toBe(true);
    expect((await decksIn(1)).length + (await decksIn(2)).length).toBe(4);

    const mergeDir = join(root, 'workflow-merge');
    const ran = await playJob(workflow.jobs.merge, workflow, {
      dir: mergeDir,
      artifacts,
      skip: isSetup,
    });
    expect(ran).toContain('Merge and aggregate');
    expect(ran).toContain('Report');
    expect(await readFile(join(mergeDir, 'site', 'index.html'), 'utf8')).toContain('<svg');
    const merged = await artifactsOf(join(mergeDir, 'merged'));
    expect([...merged.keys()]).toContain('runs/ci/summary/summary.json');
    expect([...merged.keys()].filter((path) => path.endsWith('/metrics.json')).length).toBeGreaterThanOrEqual(
      4,
    );
    expect(treeDifferences(unsharded, merged, sameUpToTime)).toEqual([]);
  }, 240_000);

  it('the shell loop: n = 3 shard folders merged and aggregated equal the unsharded run', async () => {
    const loop = fenced(await page(), 'sh').find((block) => block.includes('for I in')) ?? '';
    expect(loop).toMatch(/^N=3$/m);
    const dir = await checkout(join(root, 'loop'));
    await bash(loop, dir, {});
    expect((await readdir(join(dir, 'shards'))).sort()).toEqual(['shard-0', 'shard-1', 'shard-2']);
    const merged = await artifactsOf(join(dir, 'merged'));
    expect(treeDifferences(unsharded, merged, sameUpToTime)).toEqual([]);
  }, 240_000);
});

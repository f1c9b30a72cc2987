import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runXsb, type XsbArgs } from '../testing-cli';
import { REPO_ROOT } from '../testing-fixtures';

let root: string;
let cleanup: () => Promise<void>;

const run = (args: XsbArgs) => runXsb(args, { cwd: root, env: { PATH: process.env.PATH ?? '' } });

/**
 * Files that record how one invocation went rather than what it produced: the usage ledger (a
 * killed batch is judged again), job logs and the deck batch summary (done vs skipped counts).
 */
const PROCESS_RECORDS = new Set(['usage_ledger.jsonl', 'evaluate.log', 'batch_summary.json']);
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function withoutTimestamps(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimestamps);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => !(typeof v === 'string' && ISO_TIME.test(v)))
        .map(([k, v]) => [k, withoutTimestamps(v)]),
    );
  return value;
}

async function artifacts(dataDir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of (await readdir(dataDir, { recursive: true, withFileTypes: true })).sort((a, b) =>
    join(a.parentPath, a.name).localeCompare(join(b.parentPath, b.name)),
  )) {
    if (!entry.isFile() || PROCESS_RECORDS.has(entry.name)) continue;
    const path = join(entry.parentPath, entry.name);
    const relativePath = path.slice(dataDir.length + 1);
    if (relativePath.includes('.xsb.lock')) continue;
    let text = (await readFile(path)).toString('base64');
    if (entry.name.endsWith('.json'))
      text = JSON.stringify(withoutTimestamps(JSON.parse(await readFile(path, 'utf8'))));
    else if (entry.name.endsWith('.jsonl'))
      text = (await readFile(path, 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.stringify(withoutTimestamps(JSON.parse(line))))
        .join('\n');
    files.set(relativePath, text);
  }
  return files;
}

/** Files named `name` under `dir` while a run writes there: a folder (a lock) that vanishes mid-walk is walked again. */
async function countFiles(dir: string, name: string): Promise<number> {
  for (;;) {
    if (!existsSync(dir)) return 0;
    try {
      return (await readdir(dir, { recursive: true })).filter((entry) => String(entry).endsWith(name)).length;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

describe('xsb demo', () => {
  beforeAll(async () => {
    ({ dir: root, cleanup } = await makeTempDir('xsb-demo-cli-'));
  });
  afterAll(() => cleanup());

  it('prints the results table, and a second run makes no judge call', async () => {
    const first = await run(['demo', '--out', 'a']);
    expect(first.stderr).not.toContain('failed:');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('## Audience: learners');
    expect(first.stdout).toMatch(
      /\| xsb-baseline__audience_conditioned \| 3 \| [\d.]+(?: \(\d+–\d+\))? \| \d\.\d{3} \[/,
    );
    // what the numbers rest on, before the tables: judges, tau_a, bootstrap, and that offline judges rank nothing
    const lines = first.stdout.split('\n');
    expect(lines[2]).toBe(
      '- judges: `lexical` (offline, no model) for probes, weights, answerability, correctness',
    );
    expect(lines[3]).toBe('- tau_a: 0.7; bootstrap: 2000 resamples, seed 20240607, 95% percentile interval');
    expect(lines[4]).toMatch(/^- WARNING: Offline judges \(lexical\) are a smoke test of the pipeline/);
    expect(first.stdout).toContain('- missing jobs: none');
    expect(first.stdout).toMatch(
      /n differs: cases \w+, \w+ missing for system notebooklm__audience_agnostic/,
    );
    // a newcomer is told how to read the table and where every stage's files went
    expect(first.stdout).toContain('higher is better in every metric column');
    expect(first.stdout).toContain(`Files (spec 000 layout) under ${join(root, 'a', 'data')}/:`);
    expect(first.stdout).toMatch(
      /runs\/demo\/evaluations\/<system>\/<condition>\/<audience>\/<case>\/ +deck_stats/,
    );
    expect(first.stdout).toContain(
      `report: ${join(root, 'a', 'data', 'runs', 'demo', 'summary', 'report.md')}`,
    );
    const second = await run(['demo', '--out', 'a']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('judge lexical (offline: no model, no tokens): 0 judge calls this run');
  }, 120_000);

  it('stops before any work when the replay store is missing (exit 2)', async () => {
    const result = await run(['demo', '--out', 'r', '--judge', 'replay:missing-store.jsonl']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^ERROR: missing-store\.jsonl: replay store not found/);
    expect(existsSync(join(root, 'r'))).toBe(false);
  });

  it('continues after SIGKILL during evaluation to the artifacts of an uninterrupted run, without duplicated rows', async () => {
    // The kill must land while evaluation is under way. On a loaded machine the poll can miss that
    // window (the child finishes first); then the scenario is repeated in a fresh folder, up to 3 times.
    let out = '';
    let doneAtKill = -1;
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      out = `b${attempt}`;
      const evaluations = join(root, out, 'data', 'runs', 'demo', 'evaluations');
      const child: ChildProcess = spawn(
        process.execPath,
        ['--import', 'tsx', join(REPO_ROOT, 'apps/cli/src/main.ts'), 'demo', '--out', join(root, out)],
        {
          cwd: REPO_ROOT,
          env: { ...process.env, HOME: root, XDG_CACHE_HOME: join(root, 'cache') },
          stdio: 'ignore',
        },
      );
      let exitedEarly = false;
      const exited = new Promise<void>((done) =>
        child.on('exit', () => {
          exitedEarly = true;
          done();
        }),
      );
      for (;;) {
        doneAtKill = await countFiles(evaluations, 'status.json');
        if (doneAtKill >= 1 || exitedEarly) {
          child.kill('SIGKILL');
          break;
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      await exited;
      if (doneAtKill >= 1 && doneAtKill < 21) break;
    }
    const killedData = join(root, out, 'data');
    // killed mid-evaluation: some jobs finished, not all 21
    expect(doneAtKill).toBeGreaterThanOrEqual(1);
    expect(doneAtKill).toBeLessThan(21);

    const resumed = await run(['demo', '--out', out]);
    expect(resumed.code).toBe(0);
    const reference = await artifacts(join(root, 'a', 'data'));
    const continued = await artifacts(killedData);
    expect([...continued.keys()]).toEqual([...reference.keys()]);
    const different = [...reference.keys()].filter((key) => reference.get(key) !== continued.get(key));
    expect(different).toEqual([]);
    for (const [path, text] of continued) {
      if (!path.endsWith('probe_scores.jsonl')) continue;
      const ids = text.split('\n').map((line) => JSON.parse(line).probe_id);
      expect(new Set(ids).size, path).toBe(ids.length);
    }
  }, 180_000);
});

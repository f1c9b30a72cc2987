import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { runDemo } from '@xsb/eval';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { repoFixture } from './testing-fixtures';
import { eventually, spawnXsb } from './testing-processes';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-interrupt-'));
});
afterEach(() => cleanup());

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A stand-in for LibreOffice that behaves like its launcher: it forks the worker (`soffice.bin`,
 * here a `sleep`) and waits for it, so a conversion is still running when the test interrupts xsb. It
 * records its own pid, the worker's and its arguments (the scratch folders xsb made for it).
 */
async function fakeSoffice(dir: string): Promise<{ program: string; record: string }> {
  const program = join(dir, 'soffice');
  const record = join(dir, 'soffice.record');
  await writeFile(
    program,
    `#!/bin/sh\nsleep 120 &\nprintf '%s\\n' "$$ $!" "$@" > "${record}.tmp"\nmv "${record}.tmp" "${record}"\nwait\n`,
    { mode: 0o755 },
  );
  return { program, record };
}

/** The pids of the running stand-in and its worker, and the folders it was handed. */
async function started(record: string) {
  const lines = (await readFile(record, 'utf8')).trim().split('\n');
  const [launcher, worker] = lines[0]!.split(' ').map(Number) as [number, number];
  const outdir = lines[lines.indexOf('--outdir') + 1]!;
  const profile = lines.find((line) => line.startsWith('-env:UserInstallation='))!;
  return {
    launcher,
    worker,
    outdir,
    profile: new URL(profile.slice('-env:UserInstallation='.length)).pathname,
  };
}

describe('Ctrl-C while LibreOffice converts', () => {
  it('xsb decks render: exits 130, says it was interrupted, kills soffice and its worker, leaves no scratch folder', async () => {
    const soffice = await fakeSoffice(root);
    const tmp = join(root, 'tmp');
    await mkdir(tmp);
    const xsb = spawnXsb(
      [
        'decks',
        'render',
        repoFixture('decks', 'cs_raft_consensus.baseline.pptx'),
        '--out',
        join(root, 'png'),
      ],
      { home: root, env: { XSB_SOFFICE: soffice.program, TMPDIR: tmp } },
    );
    const run = await eventually(
      () => (existsSync(soffice.record) ? started(soffice.record) : Promise.resolve(undefined)),
      'the stand-in soffice to start',
    );
    expect(isAlive(run.launcher) && isAlive(run.worker)).toBe(true);
    expect(run.outdir.startsWith(tmp)).toBe(true);

    xsb.child.kill('SIGINT');

    expect(await xsb.exited).toBe(130);
    expect(xsb.output()).toMatch(
      /interrupted: SIGINT; killed soffice \(pid \d+\); removed 2 scratch folders\n/,
    );
    await eventually(
      async () => (isAlive(run.launcher) || isAlive(run.worker) ? undefined : true),
      'soffice and its worker to end',
      5_000,
    );
    expect(existsSync(run.outdir)).toBe(false);
    expect(existsSync(run.profile)).toBe(false);
    // (tsx keeps its cache in TMPDIR too.)
    expect((await readdir(tmp)).filter((name) => name.startsWith('xsb-'))).toEqual([]);
  }, 60_000);

  it('xsb report --html: exits 130 during the thumbnails, kills soffice, removes its scratch folders', async () => {
    const sources = join(root, 'sources');
    await mkdir(sources);
    await cp(repoFixture('sources', 'cs_raft_consensus'), join(sources, 'cs_raft_consensus'), {
      recursive: true,
    });
    // The demo's decks are PPTX (xsb-baseline), so their thumbnails go through LibreOffice.
    await runDemo({ outDir: join(root, 'demo'), sourcesDir: sources });
    const soffice = await fakeSoffice(root);
    const xsb = spawnXsb(['report', '--html', '--data', join(root, 'demo', 'data'), '--run', 'demo'], {
      home: root,
      env: { XSB_SOFFICE: soffice.program },
    });
    const run = await eventually(
      () => (existsSync(soffice.record) ? started(soffice.record) : Promise.resolve(undefined)),
      'the stand-in soffice to start',
    );

    xsb.child.kill('SIGINT');

    expect(await xsb.exited).toBe(130);
    // xsb-report-pdf-* (the converted PDFs) and xsb-report-soffice-* (LibreOffice's profile and inputs).
    expect(xsb.output()).toMatch(
      /interrupted: SIGINT; killed soffice \(pid \d+\); removed 2 scratch folders\n/,
    );
    await eventually(
      async () => (isAlive(run.launcher) || isAlive(run.worker) ? undefined : true),
      'soffice and its worker to end',
      5_000,
    );
    expect(existsSync(run.outdir)).toBe(false);
    expect(existsSync(run.profile)).toBe(false);
    expect(existsSync(join(root, 'demo', 'data', 'runs', 'demo', 'summary', 'report.html'))).toBe(false);
  }, 300_000);
});

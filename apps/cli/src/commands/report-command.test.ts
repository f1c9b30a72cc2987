import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile } from 'node:fs/promises';
import { get } from 'node:http';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { runDemo } from '@xsb/eval';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runXsb, type XsbArgs } from '../testing-cli';
import { REPO_ROOT, repoFixture } from '../testing-fixtures';

let root: string;
let cleanup: () => Promise<void>;
const run = (args: XsbArgs) => runXsb(args, { cwd: root, env: { PATH: process.env.PATH ?? '' } });

beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-report-cli-'));
  const sources = join(root, 'sources');
  await mkdir(sources);
  await cp(repoFixture('sources', 'cs_raft_consensus'), join(sources, 'cs_raft_consensus'), {
    recursive: true,
  });
  await runDemo({ outDir: join(root, 'one'), sourcesDir: sources });
}, 300_000);
afterAll(() => cleanup());

describe('xsb report --html', () => {
  it('refuses bad flags with exit 2 before writing anything', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['report', '--data', 'one/data', '--run', 'demo'], /add --html/],
      [['report', '--html', '--bench', 'x', '--rubric', 'y'], /not several/],
      [['report', '--html', '--bench', 'x', '--run', 'demo'], /--run names a pipeline run/],
      [
        ['report', '--html', '--data', 'one/data', '--run', 'demo', '--thumbnails', 'huge'],
        /--thumbnails must be one of off, small, large/,
      ],
      [
        ['report', '--html', '--data', 'one/data', '--run', 'ghost'],
        /run summary .* does not exist; run xsb aggregate/,
      ],
      [['report', '--html', '--bench', 'one/data'], /bench run run\.json .* does not exist/],
      [['report', '--html', '--rubric', 'one/data'], /no xsb_rubric_summary_<judge>\.json under/],
    ];
    for (const [args, message] of cases) {
      const result = await run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^ERROR: /);
      expect(result.stderr).toMatch(message);
    }
    expect(existsSync(join(root, 'one', 'data', 'runs', 'demo', 'summary', 'report.html'))).toBe(false);
  });

  it('writes summary/report.html of a run and says where', async () => {
    const result = await run([
      'report',
      '--html',
      '--data',
      'one/data',
      '--run',
      'demo',
      '--thumbnails',
      'off',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const file = join(root, 'one', 'data', 'runs', 'demo', 'summary', 'report.html');
    expect(result.stdout).toMatch(
      new RegExp(
        `^report: ${file} \\(\\d+\\.\\d MB; 4 decks: thumbnails 0 rendered, 0 cached, 4 without\\)\\n$`,
      ),
    );
    expect(existsSync(file)).toBe(true);
    const out = await run([
      'report',
      '--html',
      '--data',
      'one/data',
      '--run',
      'demo',
      '--thumbnails',
      'off',
      '--out',
      'elsewhere/r.html',
    ]);
    expect(out.code).toBe(0);
    expect(await readdir(join(root, 'elsewhere'))).toEqual(['r.html']);
  });
});

describe('xsb demo', () => {
  it('ends with the path of its HTML report', async () => {
    const result = await run(['demo', '--sources', 'sources', '--out', 'again', '--thumbnails', 'off']);
    expect(result.code).toBe(0);
    const file = join(root, 'again', 'data', 'runs', 'demo', 'summary', 'report.html');
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe(`HTML report: ${file}`);
    expect(existsSync(file)).toBe(true);
    // the README says so below its first command and shows the report's screenshot
    const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').find((line) => line.startsWith('npm install'))).toBe(
      'npm install --global pnpm@10.34.9 && pnpm install && pnpm xsb demo',
    );
    expect(readme).toContain('`HTML report: …/xsb-demo/data/runs/demo/summary/report.html`');
    const image = /\]\((docs\/images\/[a-z-]+\.png)\)/.exec(readme)?.[1];
    expect(image && existsSync(join(REPO_ROOT, image))).toBe(true);
    const bad = await run(['demo', '--out', 'never', '--thumbnails', 'huge']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--thumbnails must be one of off, small, large/);
    expect(existsSync(join(root, 'never'))).toBe(false);
  }, 120_000);
});

describe('xsb view', () => {
  it('refuses a host other than 127.0.0.1 and a bad port (exit 2)', async () => {
    expect((await run(['view', '--data', 'one/data', '--host', '0.0.0.0', '--port', '0'])).stderr).toMatch(
      /ERROR: the report viewer listens on 127\.0\.0\.1 only/,
    );
    const badPort = await run(['view', '--data', 'one/data', '--port', 'abc']);
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toMatch(/--port must be an integer/);
    expect((await run(['view', '--data', 'nowhere'])).stderr).toMatch(/data folder .* does not exist/);
  });

  it('serves the index over HTTP until SIGTERM', async () => {
    const child: ChildProcess = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(REPO_ROOT, 'apps/cli/src/main.ts'),
        'view',
        '--data',
        join(root, 'one', 'data'),
        '--port',
        '0',
      ],
      { cwd: REPO_ROOT, env: { ...process.env, HOME: root }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk) => {
        out += chunk;
        const found = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
        if (found) resolve(found[1]!);
      });
      child.on('exit', () => reject(new Error(`xsb view exited: ${out}`)));
    });
    const body = await new Promise<string>((resolve, reject) =>
      get(url, (response) => {
        let text = '';
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () => resolve(text));
      }).on('error', reject),
    );
    expect(body).toContain('href="/run/demo"');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);
});

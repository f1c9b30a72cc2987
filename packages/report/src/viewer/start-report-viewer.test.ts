import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { BenchLayout, discoverBenchCases, runBench, splitCases } from '@xsb/bench';
import { makeFastTempDir } from '@xsb/bench/testing';
import { runDemo } from '@xsb/eval';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturesDir, prepareRubricResults } from '../testing';
import { type ReportViewer, startReportViewer } from './start-report-viewer';

let dir: string;
let cleanup: () => Promise<void>;
let dataDir: string;
let viewer: ReportViewer;
let benchId: string;

/** A raw HTTP GET (so the Host header can be anything). */
function get(path: string, headers: Record<string, string> = {}, method = 'GET') {
  return new Promise<{ status: number; body: string; headers: Record<string, unknown> }>(
    (resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: viewer.port, path, method, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      });
      req.on('error', reject);
      req.end();
    },
  );
}

beforeAll(async () => {
  ({ dir, cleanup } = await makeFastTempDir('xsb-report-viewer-'));
  const sources = join(dir, 'sources');
  await mkdir(sources);
  await cp(join(fixturesDir(), 'sources', 'cs_raft_consensus'), join(sources, 'cs_raft_consensus'), {
    recursive: true,
  });
  ({ dataDir } = await runDemo({ outDir: join(dir, 'demo'), sourcesDir: sources }));
  const { cases } = await discoverBenchCases(dataDir);
  await splitCases(new BenchLayout(dataDir), cases, { testShare: 0 });
  benchId = (await runBench({ dataDir, pipelineRun: 'demo' })).runId;
  await prepareRubricResults(dataDir);
  viewer = await startReportViewer({ dataDir, port: 0, thumbnails: 'off' });
}, 300_000);

afterAll(async () => {
  await viewer?.close();
  await cleanup();
});

describe('startReportViewer', () => {
  it('listens on 127.0.0.1 only and refuses any other host', async () => {
    expect(viewer.url).toBe(`http://127.0.0.1:${viewer.port}/`);
    await expect(startReportViewer({ dataDir, port: 0, host: '0.0.0.0' })).rejects.toThrow(
      /127\.0\.0\.1 only/,
    );
    expect((await get('/', { host: `evil.example:${viewer.port}` })).status).toBe(403);
  });

  it('lists every run, bench record and rubric result with links', async () => {
    const index = await get('/');
    expect(index.status).toBe(200);
    expect(index.headers['content-security-policy']).toContain("default-src 'none'");
    expect(index.body).toContain('href="/run/demo"');
    expect(index.body).toContain(`href="/bench/${benchId}"`);
    expect(index.body).toContain('href="/rubric/rubric-results/genA"');
    expect(index.body).toContain('href="/rubric/rubric-results/genB"');
  });

  it('builds a report on first request, serves it from the cache, and rebuilds when its summary changes', async () => {
    const before = viewer.builds();
    const first = await get('/run/demo');
    expect(first.status).toBe(200);
    expect(first.body).toContain('xsb run report: demo');
    expect(viewer.builds()).toBe(before + 1);
    const again = await get('/run/demo');
    expect(again.body).toBe(first.body);
    expect(viewer.builds()).toBe(before + 1);

    const summaryFile = join(dataDir, 'runs', 'demo', 'summary', 'summary.json');
    const summary = JSON.parse(await readFile(summaryFile, 'utf8'));
    await writeFile(summaryFile, `${JSON.stringify({ ...summary, note: 'changed' }, null, 2)}\n`);
    expect((await get('/run/demo')).status).toBe(200);
    expect(viewer.builds()).toBe(before + 2);

    expect((await get(`/bench/${benchId}`)).body).toContain(`xsb bench report: ${benchId}`);
    expect((await get('/rubric/rubric-results/genB')).body).toContain('xsb rubric report: genB');
  }, 120_000);

  it('refuses path tricks, unknown reports and other methods', async () => {
    expect((await get('/run/..')).status).toBe(400);
    expect((await get('/run/%2e%2e')).status).toBe(400);
    expect((await get('/rubric/rubric-results/..%2F..%2Fetc')).status).toBe(400);
    expect((await get('/run/nope')).status).toBe(404);
    expect((await get('/run/demo', {}, 'POST')).status).toBe(405);
  });
});

import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '@xsb/core/testing';
import { runDemo } from '@xsb/eval';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTokenList } from './api-tokens';
import { type ApiServer, startApiServer } from './start-api-server';

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const DOC = readFileSync(join(REPO_ROOT, 'docs/api.md'), 'utf8');
const EXAMPLES = [...DOC.matchAll(/```sh api-example\n([\s\S]*?)```/g)].map((match) => match[1]!);
const TOKEN = 'docs-example-token-4e5f6a7b8c9d';

const tools = ['bash', 'curl', 'jq'].filter((tool) => spawnSync(tool, ['--version']).error !== undefined);
if (tools.length > 0 && process.env.CI === 'true')
  throw new Error(`docs/api.md examples need ${tools.join(', ')} (install them; CI installs curl and jq)`);

let server: ApiServer;
let dataDir: string;
let cleanup: () => Promise<void>;

describe.skipIf(tools.length > 0)(
  `docs/api.md examples (${tools.length ? `missing ${tools.join(', ')}` : 'run with curl'})`,
  () => {
    beforeAll(async () => {
      const temp = await makeTempDir('xsb-api-docs-');
      cleanup = temp.cleanup;
      await runDemo({ outDir: temp.dir });
      dataDir = join(temp.dir, 'data');
      server = await startApiServer({
        dataDir,
        port: 0,
        tokens: parseTokenList(`ci:${TOKEN}:evaluate+read`),
        env: {},
        workers: 2,
        eventsIntervalMs: 50,
      });
    }, 180_000);
    afterAll(async () => {
      await server?.shutdown();
      await cleanup?.();
    });

    it('runs every example of the page, in order, against a started server', async () => {
      expect(EXAMPLES.length).toBeGreaterThanOrEqual(10);
      const script = [
        'set -euo pipefail',
        ...EXAMPLES.flatMap((block, index) => [`echo "::example ${index + 1}::"`, block]),
        'echo "::all examples ran::"',
      ].join('\n');
      // Asynchronously: the server answering curl runs in this process.
      const child = spawn('bash', ['--norc', '--noprofile', '-c', script], {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? '', XSB_URL: server.url, XSB_TOKEN: TOKEN, XSB_DATA: dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      const collect = (chunk: Buffer) => {
        output += chunk.toString();
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
      const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      clearTimeout(timer);
      expect(status, output).toBe(0);
      expect(output).toContain('::all examples ran::');
      expect(output).toContain('{"status":"ok"}');
      expect(output).toMatch(/accepted job [0-9a-f-]{36}/);
      expect([...output.matchAll(/event: end\ndata: {"status":"done"}/g)]).toHaveLength(2);
      expect(output).toContain(
        '"judge_kind":"offline","deck":"runs/api/decks/my-generator/audience_agnostic/all/cs_raft_consensus/deck.pptx"',
      );
      expect(output).toMatch(/^401$/m);
      expect(output).toContain(
        '{"code":"unknown_case","message":"field \\"case\\": unknown case \\"no_such_case\\"',
      );
      expect(output).toContain('"code":"unsupported_media_type"');
      expect(output).toMatch(/{"judge_kind":"offline","item_count":\d+,"paper_total":null}/);
      expect(output).toContain('{"run":"demo","has_summary":true}');
      expect(output).toContain('/healthz');
    }, 150_000);
  },
);

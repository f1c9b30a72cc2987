import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Probe } from '@xsb/core';
import { buildTestPptx } from '@xsb/decks/testing';
import { writeEvalFixture } from '@xsb/eval/testing';
import type { FakeLlmHandler } from '@xsb/llm/testing';
import type { EnqueueInput } from './job-store';

export const FIXTURE_CASE = 'pilot';
export const FIXTURE_AUDIENCES = ['learners', 'decision_makers'] as const;

const SOURCE = `Heat pumps cut heating energy use by 48 percent in the pilot.
The pilot ran in 120 homes during the winter of 2023.
Installation cost averaged 9,500 dollars per home.
Noise complaints were rare and limited to older outdoor units.
Residents reported warmer bedrooms and lower bills.`;

const FACTS = [
  ['How much energy did heat pumps save?', 'Heating energy use fell by 48 percent.'],
  ['How many homes were in the pilot?', '120 homes took part.'],
  ['What did installation cost?', 'About 9,500 dollars per home.'],
  ['Were there noise complaints?', 'Noise complaints were rare, limited to older outdoor units.'],
  ['What did residents report?', 'Warmer bedrooms and lower bills.'],
  ['When did the pilot run?', 'During the winter of 2023.'],
] as const;

/**
 * A data folder ready for stage 5: case `pilot` (source, context, `probeCount` probes, weights for
 * learners and decision_makers). Probes cycle through six facts of the source.
 */
export async function writeJobsFixture(dataDir: string, probeCount = 6): Promise<void> {
  const probes: Probe[] = Array.from({ length: probeCount }, (_, index) => {
    const [question, answer] = FACTS[index % FACTS.length]!;
    return {
      probe_id: `pb_${String(index + 1).padStart(2, '0')}`,
      source_case_id: FIXTURE_CASE,
      scene: 'test',
      question,
      answer,
      evidence: [{ locator: 'p1', text: answer }],
      level: 2,
      modality: 'text',
      theme: 'evidence',
      metadata: {},
    };
  });
  const weights = Object.fromEntries(
    FIXTURE_AUDIENCES.map((audience, a) => [
      audience,
      Object.fromEntries(probes.map((p, i) => [p.probe_id, (i + a) % 3 === 0 ? 0.3 : 1])),
    ]),
  );
  await writeEvalFixture(dataDir, {
    cases: [{ caseLabel: FIXTURE_CASE, sourceText: SOURCE, probes, weights }],
    decks: [],
  });
}

/** A real PPTX (a ZIP package) whose slides state `variant`, so every variant has its own digest. */
export function fixtureDeck(variant: string): Buffer {
  return buildTestPptx({
    slides: [
      { fileNumber: 1, title: `Heat pump pilot ${variant}`, bullets: ['Heating energy use fell 48 percent'] },
      { fileNumber: 2, title: 'Scale', bullets: ['120 homes in the winter of 2023'] },
      { fileNumber: 3, title: 'Costs', bullets: ['Installation cost 9,500 dollars per home'] },
    ],
  });
}

/** Writes `fixtureDeck(variant)` to `file`. */
export async function writeFixtureDeck(file: string, variant: string): Promise<string> {
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, fixtureDeck(variant));
  return file;
}

/**
 * Answers stage 5's model prompts with valid, empty JSON (no judgment: every probe uncovered; no
 * claim), so a model-judged job runs the real client path against the fake server at its latency.
 */
export const emptyEvalAnswers: FakeLlmHandler = (request) => {
  if (request.system.startsWith('You extract atomic factual claims')) return { text: '{"claims": []}' };
  if (request.system.startsWith('You verify claims')) return { text: '{"verdicts": []}' };
  return { text: '{"judgments": []}' };
};

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface RedisServer {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Why a real redis-server cannot be started here, or undefined when it can. */
export function redisServerUnavailable(): string | undefined {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return probe.error || probe.status !== 0
    ? 'redis-server is not installed (Debian: apt-get install redis-server)'
    : undefined;
}

/**
 * Starts a throwaway `redis-server` on a free loopback port with nothing persisted
 * (`--save '' --appendonly no`), or on `port` (a restart on the same address after `stop`); `stop` ends
 * it by its pid. A free port can be taken by another test process before redis binds it (packages are
 * tested in parallel): then it tries another one.
 */
export async function startRedisServer(options: { port?: number } = {}): Promise<RedisServer> {
  for (let attempt = 1; ; attempt += 1) {
    const port = options.port ?? (await freePort());
    try {
      return await startRedisOn(port);
    } catch (error) {
      if (options.port !== undefined || attempt >= 3 || !/already in use/i.test(String(error))) throw error;
    }
  }
}

async function startRedisOn(port: number): Promise<RedisServer> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output}`)), 10_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited before it was ready: ${output}`));
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    process: child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** An evaluation job to enqueue straight into a store (no upload): ids and keys random unless given. */
export function enqueueInput(
  options: { dedupe?: string; sha?: string; location?: string } = {},
): EnqueueInput {
  const sha = (options.sha ?? 'a').padEnd(64, '0');
  return {
    id: randomUUID(),
    kind: 'evaluation',
    request: {
      run: 'api',
      system: 'gen',
      condition: 'audience_agnostic',
      case: 'pilot',
      audiences: ['learners'],
      judge: 'lexical',
      deck: { sha256: sha, format: 'pptx', bytes: 10, filename: 'deck.pptx' },
    },
    dedupeKey: options.dedupe ?? randomUUID(),
    location: { key: options.location ?? randomUUID(), digest: sha },
    submittedBy: 'ci',
  };
}

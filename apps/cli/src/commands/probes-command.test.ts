import { cp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  audienceWeightSchema,
  probeGenerationStatusSchema,
  probeSchema,
  readJson,
  readJsonlAll,
} from '@xsb/core';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { sourceContextSchema } from '@xsb/sources';
import { writeSourceCase } from '@xsb/sources/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runXsb, type XsbArgs } from '../testing-cli';
import { makeTempDirWithSources } from '../testing-fixtures';
import { readTree, treeDifferences } from '../testing-trees';

const CASES = ['cs_raft_consensus', 'energy_heat_pump_pilot', 'ocean_coral_bleaching'];
const AUDIENCES = ['specialists', 'learners', 'decision_makers'];
let root: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDirWithSources('xsb-probes-cli-'));
});
afterEach(() => cleanup());

const run = (args: XsbArgs, env: Record<string, string> = {}) => runXsb(args, { cwd: root, env });

/** Every file under the data folder with its bytes and modification time. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files[path] = `${(await stat(path)).mtimeMs} ${await readFile(path, 'utf8')}`;
  }
  return files;
}

describe('xsb sources → probes → weights with --judge lexical', () => {
  it('writes every artifact schema-valid for PDF, HTML and markdown, and a second run does no work', async () => {
    expect((await run(['sources'])).code).toBe(0);
    const probes = await run(['probes', '--judge', 'lexical']);
    expect(probes.code).toBe(0);
    expect(probes.stdout).toContain('3 cases: 3 built, 0 skipped, 0 failed (judge lexical)');
    const weights = await run(['weights', '--judge', 'lexical']);
    expect(weights.code).toBe(0);
    expect(weights.stdout).toContain(
      '9 case-audience pairs: 9 weighted, 0 skipped, 0 failed (judge lexical, k 3)',
    );

    const weightsByAudience: Record<string, number[]> = Object.fromEntries(AUDIENCES.map((a) => [a, []]));
    for (const id of CASES) {
      const dir = join(root, 'data', 'probes', id);
      const context = await readJson(join(dir, 'source_context.json'), sourceContextSchema);
      expect(await readFile(join(dir, 'source_context.txt'), 'utf8')).toHaveLength(context.chars);
      const status = await readJson(join(dir, 'probe_generation_status.json'), probeGenerationStatusSchema);
      const bank = await readJsonlAll(join(dir, 'probes_deduped.jsonl'), probeSchema);
      expect(status).toMatchObject({ status: 'complete', judge: 'lexical', k: 3 });
      expect(status.counts.final).toBe(bank.length);
      expect(bank.length).toBeGreaterThan(5);
      expect(await readdir(join(dir, 'raw', 'chunk_00'))).toHaveLength(3);
      if (id === 'energy_heat_pump_pilot')
        expect(bank.every((p) => /^page \d+$/.test(p.evidence[0]!.locator))).toBe(true);
      for (const audience of AUDIENCES) {
        const rows = await readJsonlAll(join(dir, 'weights', `${audience}.jsonl`), audienceWeightSchema);
        expect(rows.map((row) => row.probe_id)).toEqual(bank.map((p) => p.probe_id));
        for (const row of rows) expect([0, 0.3, 0.6, 1]).toContain(row.utility_weight);
        weightsByAudience[audience]!.push(...rows.map((row) => row.utility_weight));
      }
    }
    // Metrics count only probes weighted >= tau_a (0.7 by default): the offline chain must give every
    // audience some such probes, and must not weight everything alike.
    for (const audience of AUDIENCES) {
      const weights = weightsByAudience[audience]!;
      expect(weights.filter((w) => w >= 0.7).length, audience).toBeGreaterThan(0);
      expect(weights.filter((w) => w < 0.7).length, audience).toBeGreaterThan(0);
    }

    const before = await snapshot(join(root, 'data'));
    const again = await run(['probes']);
    expect(again.stdout).toContain('3 cases: 0 built, 3 skipped, 0 failed');
    expect((await run(['weights'])).stdout).toContain('0 weighted, 9 skipped');
    expect(await snapshot(join(root, 'data'))).toEqual(before);
  });

  it('honours --case, chunk flags and --force, and rejects bad flags with exit 2', async () => {
    const chunkedRaft = 'probes --case cs_raft_consensus --chunk-chars 1500 --chunk-overlap 200 --k 2';
    const chunked = await run(chunkedRaft);
    expect(chunked.code).toBe(0);
    const status = await readJson(
      join(root, 'data', 'probes', 'cs_raft_consensus', 'probe_generation_status.json'),
      probeGenerationStatusSchema,
    );
    expect(status.k).toBe(2);
    expect(status.chunking.chunk_chars).toBe(1500);
    expect(status.chunking.chunk_count).toBeGreaterThan(1);
    const bank = await readJsonlAll(
      join(root, 'data', 'probes', 'cs_raft_consensus', 'probes_deduped.jsonl'),
      probeSchema,
    );
    expect(bank.every((p) => p.metadata.source_chunk_count === status.chunking.chunk_count)).toBe(true);
    expect((await run(`${chunkedRaft} --force`)).stdout).toContain('1 built');
    // A negative chunk size means "one chunk" and a negative overlap counts as 0 (spec 000).
    expect(
      (await run(['probes', '--case', 'cs_raft_consensus', '--chunk-chars', '-1', '--chunk-overlap', '-5']))
        .code,
    ).toBe(0);
    const whole = await readJson(
      join(root, 'data', 'probes', 'cs_raft_consensus', 'probe_generation_status.json'),
      probeGenerationStatusSchema,
    );
    expect(whole.chunking).toMatchObject({ chunk_chars: -1, chunk_overlap: -5, chunk_count: 1 });
    expect((await run(['probes', '--chunk-chars', '1.5'])).code).toBe(2);
    expect((await run(['probes', '--k', '0'])).code).toBe(2);
    expect((await run(['probes', '--case', 'nope'])).code).toBe(2);
    expect((await run(['weights', '--audience', 'aliens'])).code).toBe(2);
  });

  it('exits 1 when a case fails and still builds the others', async () => {
    await writeSourceCase(join(root, 'data'), 'broken_case', 'empty.md', '');
    const result = await run(['probes']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('4 cases: 3 built, 0 skipped, 1 failed');
    expect(result.stderr).toMatch(/ERROR: broken_case: .*empty\.md/);
    const weights = await run(['weights']);
    expect(weights.code).toBe(1);
    // The case without a bank fails once, not once per audience.
    expect(weights.stderr).toMatch(/ERROR: broken_case\/-: no probe bank/);
    expect(weights.stderr.match(/no probe bank/g)).toHaveLength(1);
  });

  it('warns, exit 0, about a source that yields no probes (a blind text), naming the case', async () => {
    // The 4-page LaTeX sample of the corpus is such a text: ten sentences repeated, no number, name
    // or definition the lexical generator could ask about.
    const blind = Array.from(
      { length: 12 },
      () =>
        'Hello, here is some text without a meaning. This text should show what a printed text will look like at this place. If you read this text, you will get no information.',
    ).join('\n\n');
    await writeSourceCase(join(root, 'data'), 'blind_text', 'blind.md', blind);
    const result = await run(['probes', '--case', 'blind_text']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('1 case: 1 built, 0 skipped, 0 failed');
    expect(result.stderr).toContain('warning: case blind_text: 0 probes, contributes no coverage');
    const weights = await run(['weights', '--case', 'blind_text']);
    expect(weights.stderr).toContain('warning: case blind_text: 0 probes, contributes no coverage');
  });
});

describe('xsb probes and weights through a model judge (fake provider)', () => {
  let server: FakeLlmServer;
  beforeEach(async () => {
    server = await startFakeLlmServer();
  });
  afterEach(() => server.close());

  it('judges the bank in batches of --batch-size, k times each', async () => {
    const quotes = [
      'Raft is a consensus algorithm for managing a replicated log',
      'in a user study with 43 students at Stanford and Berkeley, 33 scored higher on a Raft quiz',
      'A cluster of five servers tolerates the failure of any two',
    ];
    server.setHandler((request) => {
      if (request.system.includes('You write probes')) {
        return {
          text: JSON.stringify(
            quotes.map((text, i) => ({
              question: `Question ${i + 1} about Raft?`,
              answer: ['a consensus algorithm', '33 of 43 students', 'two of five servers'][i],
              evidence: [{ locator: 'intro', text }],
              level: 1,
              modality: 'text',
              theme: 'result',
            })),
          ),
        };
      }
      const ids = [...new Set(request.text.match(/pb_\d{4}/g) ?? [])];
      return { text: JSON.stringify(ids.map((id) => ({ probe_id: id, utility: 0.6, rationale: 'useful' }))) };
    });
    const env = { ...fakeProviderEnv(server), XSB_NO_CACHE: '1' };
    const judge = ['--case', 'cs_raft_consensus', '--judge', 'openai:gpt-fake'];
    expect((await run(['probes', ...judge, '--k', '1'], env)).code).toBe(0);
    const before = server.requests.length;
    const weights = await run(
      ['weights', ...judge, '--audience', 'specialists', '--batch-size', '2', '--k', '2'],
      env,
    );
    expect(weights.code).toBe(0);
    const utilityCalls = server.requests.slice(before);
    // 3 probes in batches of 2 → 2 batches, each judged k = 2 times (seeds 0 and 1).
    const batches = utilityCalls.map((r) => {
      const listing = r.text.slice(r.text.indexOf('Rate these'));
      return `${r.body.seed}:${[...new Set(listing.match(/pb_\d{4}/g))].join(',')}`;
    });
    expect([...new Set(batches)].sort()).toEqual([
      '0:pb_0001,pb_0002',
      '0:pb_0003',
      '1:pb_0001,pb_0002',
      '1:pb_0003',
    ]);
    const rows = await readJsonlAll(
      join(root, 'data', 'probes', 'cs_raft_consensus', 'weights', 'specialists.jsonl'),
      audienceWeightSchema,
    );
    expect(rows.map((row) => [row.probe_id, row.utility_weight, row.metadata.k])).toEqual([
      ['pb_0001', 0.6, 2],
      ['pb_0002', 0.6, 2],
      ['pb_0003', 0.6, 2],
    ]);
  });

  it('generates k answers per chunk and weights every probe k times', async () => {
    const quote = 'Raft is a consensus algorithm for managing a replicated log';
    server.setHandler((request) => {
      if (request.system.includes('You write probes')) {
        return {
          text: `\`\`\`json\n${JSON.stringify([
            {
              question: 'What is Raft?',
              answer: 'A consensus algorithm for a replicated log',
              evidence: [{ locator: 'intro', text: quote }],
              level: 1,
              modality: 'text',
              theme: 'definition',
            },
          ])}\n\`\`\``,
        };
      }
      const seed = Number(request.body.seed);
      return {
        text: JSON.stringify([
          { probe_id: 'pb_0001', utility: [0.9, 0.5, 0.2][seed], rationale: `s${seed}` },
        ]),
      };
    });
    const env = { ...fakeProviderEnv(server), XSB_NO_CACHE: '1' };
    const probes = await run(['probes', '--case', 'cs_raft_consensus', '--judge', 'openai:gpt-fake'], env);
    expect(probes.code).toBe(0);
    expect(probes.stdout).toMatch(/cs_raft_consensus\s+1\s+3\s+0\s+0\s+2\s+1\s+complete/);
    const weights = await run(
      ['weights', '--case', 'cs_raft_consensus', '--audience', 'learners', '--judge', 'openai:gpt-fake'],
      env,
    );
    expect(weights.code).toBe(0);
    const rows = await readJsonlAll(
      join(root, 'data', 'probes', 'cs_raft_consensus', 'weights', 'learners.jsonl'),
      audienceWeightSchema,
    );
    // 0.9, 0.5, 0.2 → 1.0, 0.6, 0.3: mean 0.6333, population std 0.2867 > 0.25 → high variance.
    expect(rows[0]!.utility_weight).toBeCloseTo(1.9 / 3, 12);
    expect(rows[0]!.metadata).toMatchObject({
      judge: 'openai:gpt-fake',
      high_variance: true,
      rationales: ['s0', 's1', 's2'],
    });
    // 3 generations + 3 utility samples; identical bodies would be transport retries of one call.
    expect(new Set(server.requests.map((request) => JSON.stringify(request.body))).size).toBe(6);
  });

  it('--batch: probes and weights go through provider batches and write the online run’s bytes', async () => {
    // A generator answer and utilities that follow from the prompt alone, so both runs get the same answers.
    server.setHandler((request) => {
      if (request.system.includes('You write probes')) {
        const source = /<source>\n([\s\S]*)\n<\/source>/.exec(request.text)?.[1] ?? '';
        const line = source.split('\n').find((text) => text.trim().length > 60) ?? '';
        return {
          text: JSON.stringify([
            {
              question: 'What does the source say first?',
              answer: 'its opening',
              evidence: [{ locator: 'intro', text: line.trim().slice(0, 60) }],
              level: 1,
              modality: 'text',
              theme: 'result',
            },
          ]),
        };
      }
      const ids = [...new Set(request.text.match(/pb_\d{4}/g) ?? [])];
      return {
        text: JSON.stringify(
          ids.map((id, i) => ({
            probe_id: id,
            utility: (request.text.length + i) % 2 ? 0.8 : 0.4,
            rationale: 'r',
          })),
        ),
      };
    });
    const env = fakeProviderEnv(server) as Record<string, string>;
    const config = JSON.stringify({ batch: { idleMs: 150, pollIntervalMs: 20, maxPollIntervalMs: 100 } });
    const twin = `${root}-batch`;
    await cp(root, twin, { recursive: true });
    const judged = ['--judge', 'anthropic:claude-sonnet-4-5', '--k', '1'];
    const stages = async (cwd: string, extra: string[]) => {
      await writeFile(join(cwd, 'xsb.config.json'), config);
      expect((await runXsb(['sources'], { cwd })).code).toBe(0);
      const probes = await runXsb(['probes', ...judged, ...extra], { cwd, env });
      expect(probes.code, probes.stderr).toBe(0);
      const weights = await runXsb(['weights', ...judged, '--audience', 'specialists', ...extra], {
        cwd,
        env,
      });
      expect(weights.code, weights.stderr).toBe(0);
      return weights;
    };
    await stages(root, []);
    const onlineCalls = server.requests.length;
    expect(server.requests.every((request) => request.batchId === undefined)).toBe(true);
    const batchesBefore = server.batches.length;
    const batched = await stages(twin, ['--batch']);
    expect(batched.stderr).toMatch(/batch msgbatch_\w+: submitted \d+ request/);
    const batchRequests = server.requests.slice(onlineCalls);
    expect(batchRequests.length).toBeGreaterThan(3);
    expect(batchRequests.every((request) => request.batchId !== undefined)).toBe(true);
    // One batch per stage for all three cases' calls (probes, then weights), not one per case.
    expect(server.batches.length - batchesBefore).toBe(2);
    const skip = (path: string) =>
      path.includes('batches/') || path.endsWith('usage_ledger.jsonl') || path.includes('cache/');
    const a = await readTree(join(root, 'data'), skip);
    const b = await readTree(join(twin, 'data'), skip);
    const weightFiles = [...a].filter(([path]) => path.endsWith('weights/specialists.jsonl'));
    expect(weightFiles).toHaveLength(3);
    // Most cases keep their one scripted probe (a source's longest line can be page furniture and dropped).
    const weighted = weightFiles.filter(([, bytes]) => bytes.toString('utf8').includes('"utility_weight"'));
    expect(weighted.length).toBeGreaterThanOrEqual(2);
    expect(treeDifferences(a, b)).toEqual([]);
  }, 120_000);
});

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  exitCodeFor,
  probeGenerationStatusSchema,
  probeSchema,
  RunLayout,
  readJson,
  readJsonlAll,
  type StageEvent,
} from '@xsb/core';
import { callsMade, makeTempDir } from '@xsb/core/testing';
import { createLlmClient } from '@xsb/llm';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { loadSourceCase } from '@xsb/sources';
import { writeSourceCase } from '@xsb/sources/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateCaseProbes } from './generate-case-probes';
import { LlmProbeGenerator } from './llm-probe-generator';
import { PROBE_GENERATION_CORRECTION } from './probe-generation-prompt';

const SOURCE = [
  'Solar capacity in the region grew to 4.2 gigawatts in 2023, doubling the 2021 figure.',
  'A feed-in tariff is a fixed price paid to small producers for every kilowatt hour they export.',
  'The Regional Energy Agency expects storage costs to fall by 30 percent before 2027.',
  'Grid operators warned that evening demand peaks remain the main constraint on further growth.',
].join('\n');

const item = (question: string, answer: string, quote: string, extra: Record<string, unknown> = {}) => ({
  question,
  answer,
  evidence: [{ locator: 'paragraph 1', text: quote }],
  level: 1,
  modality: 'text',
  theme: 'result',
  ...extra,
});

let server: FakeLlmServer;
let cleanup: () => Promise<void>;
let dataDir: string;
beforeEach(async () => {
  server = await startFakeLlmServer();
  ({ dir: dataDir, cleanup } = await makeTempDir('xsb-probes-llm-'));
  await writeSourceCase(dataDir, 'case_a', 'report.txt', SOURCE, { scene: 'briefing', title: 'Solar' });
});
afterEach(async () => {
  await server.close();
  await cleanup();
});

/** Requests with different bodies: identical bodies are transport retries of one logical call. */
const distinctRequests = (fake: FakeLlmServer): number =>
  new Set(fake.requests.map((request) => JSON.stringify(request.body))).size;

describe('LlmProbeGenerator through the fake provider', () => {
  it('k=3 samples per chunk, messy answers, union, filters, grounding and dedup give the hand count', async () => {
    const capacity = item(
      'What solar capacity did the region reach in 2023?',
      '4.2 gigawatts',
      'Solar capacity in the region grew to 4.2 gigawatts in 2023',
    );
    const storage = item(
      'How much are storage costs expected to fall?',
      '30 percent before 2027',
      'expects storage costs to fall by 30 percent before 2027',
    );
    const tariff = item(
      'What is a feed-in tariff?',
      'A fixed price paid to small producers for every kilowatt hour they export',
      'A feed-in tariff is a fixed price paid to small producers',
      { level: '2', theme: 'Definition' },
    );
    // Answers by chunk start and sample seed; sample 1 of chunk 0 first answers prose, then JSON.
    const answers: Record<string, string[]> = {
      '0:0': [
        `Here you go:\n\`\`\`json\n${JSON.stringify([capacity, item('Which works are cited?', 'none', 'Solar capacity')])}\n\`\`\``,
      ],
      '0:1': [
        'I am sorry, I need more context.',
        JSON.stringify({ probes: [capacity, { question: 'no answer' }] }),
      ],
      '0:2': [JSON.stringify([item('Where is growth shown?', 'Figure 2', 'Solar capacity in the region')])],
      '180:0': [JSON.stringify([tariff, item('Invented?', 'wind', 'Wind capacity reached 3 gigawatts')])],
      '180:1': [`Probes: ${JSON.stringify([storage])} — done.`],
      '180:2': [JSON.stringify([storage, tariff])],
    };
    // The turn comes from the conversation (a follow-up carries the correction), so a transport-level
    // retry of the same request gets the same answer.
    server.setHandler((request) => {
      const start = /\[Source chunk chars (\d+)-/.exec(request.text)![1];
      const turn = request.text.includes(PROBE_GENERATION_CORRECTION) ? 1 : 0;
      return { text: answers[`${start}:${request.body.seed}`]![turn]! };
    });
    const client = createLlmClient('openai:gpt-fake', { env: fakeProviderEnv(server) });
    const layout = new RunLayout(dataDir);
    const sourceCase = await loadSourceCase(dataDir, 'case_a');
    const events: StageEvent[] = [];
    const result = await generateCaseProbes(layout, sourceCase, {
      generator: new LlmProbeGenerator(client),
      k: 3,
      chunkChars: 240,
      chunkOverlap: 60,
      onEvent: (event) => events.push(event),
    });
    expect(result.status).toBe('complete');
    // 355 characters: windows [0,240) and [180,355): 2 chunks x 3 samples + 1 corrective call.
    expect(distinctRequests(server)).toBe(7);
    // Each of those calls is a call-made event carrying the usage the provider reported.
    expect(callsMade(events, { stage: 'probes', id: 'case_a' })).toHaveLength(7);
    expect(server.requests[0]!.system).toContain('VERBATIM');
    const status = await readJson(layout.probeStatusFile('case_a'), probeGenerationStatusSchema);
    // generated 9 = capacity×2, cited, pointer, tariff×2, invented, storage×2; 1 malformed item.
    expect(status.counts).toMatchObject({
      generated: 9,
      filtered: 2,
      ungrounded: 1,
      duplicates: 3,
      final: 3,
      malformed: 1,
    });
    expect(status.judge).toBe('openai:gpt-fake');
    const bank = await readJsonlAll(layout.probesFile('case_a'), probeSchema);
    expect(bank.map((p) => [p.probe_id, p.answer, p.level, p.theme])).toEqual([
      ['pb_0001', '4.2 gigawatts', 1, 'result'],
      [
        'pb_0002',
        'A fixed price paid to small producers for every kilowatt hour they export',
        2,
        'definition',
      ],
      ['pb_0003', '30 percent before 2027', 1, 'result'],
    ]);
    const raw = JSON.parse(
      await readFile(join(layout.rawChunkDir('case_a', 0), 'generation_01.json'), 'utf8'),
    );
    expect(raw.exchanges).toHaveLength(2);
    expect(raw.exchanges[0].response.text).toBe('I am sorry, I need more context.');
    expect(raw.exchanges[1].request.messages).toHaveLength(3);
  });

  it('fails the case after a second answer without a probe list', async () => {
    server.setHandler(() => ({ text: 'No JSON here.' }));
    const client = createLlmClient('openai:gpt-fake', { env: fakeProviderEnv(server) });
    const layout = new RunLayout(dataDir);
    const result = await generateCaseProbes(layout, await loadSourceCase(dataDir, 'case_a'), {
      generator: new LlmProbeGenerator(client),
      k: 1,
    });
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/without a JSON list of probes/);
    expect(distinctRequests(server)).toBe(2);
  });

  it('stops the run (exit-2 error) when the provider refuses the key, after recording the failed case', async () => {
    server.setHandler(() => ({ fault: { kind: 'status', status: 401 } }));
    const client = createLlmClient('openai:gpt-fake', { env: fakeProviderEnv(server) });
    const layout = new RunLayout(dataDir);
    const error = await generateCaseProbes(layout, await loadSourceCase(dataDir, 'case_a'), {
      generator: new LlmProbeGenerator(client),
      k: 1,
    }).catch((caught: unknown) => caught);
    expect(exitCodeFor(error)).toBe(2);
    const status = await readJson(layout.probeStatusFile('case_a'), probeGenerationStatusSchema);
    expect(status.status).toBe('failed');
  });
});

import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { correctnessSchema, probeScoreSchema, readJson, readJsonlAll } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ANSWERABILITY_SYSTEM } from './answerability-prompt';
import { CLAIM_EXTRACTION_SYSTEM } from './claim-extraction-prompt';
import { runEvaluation } from './run-evaluation';
import { makeDeck, writeEvalFixture } from './testing';

const probes = ['pb_1', 'pb_2', 'pb_3'].map((id, i) => ({
  probe_id: id,
  source_case_id: 'c1',
  scene: 'test',
  question: `Question ${i}?`,
  answer: `Answer ${i}.`,
  evidence: [{ locator: 'p1', text: `Evidence ${i}.` }],
  level: 2,
  modality: 'text',
  theme: 'evidence',
  metadata: {},
}));

/** A valid PDF of `pages` blank pages: an image-only export has no visible text either. */
function blankPdf(pages: number): string {
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(' ');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
    ...Array.from({ length: pages }, () => '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 720 405] >>'),
  ];
  let pdf = '%PDF-1.4\n';
  const offsets = objects.map((body, i) => {
    const offset = pdf.length;
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return offset;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) pdf += `${String(offset).padStart(10, '0')} 00000 n \n`;
  return `${pdf}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
}

describe('runEvaluation with a model judge (real OpenAI SDK against the fake server)', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let server: FakeLlmServer;

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
    server = await startFakeLlmServer();
    await writeEvalFixture(join(dir, 'data'), {
      cases: [
        {
          caseLabel: 'c1',
          sourceText: 'Energy use fell 48 percent.',
          probes,
          weights: { learners: { pb_1: 1, pb_2: 1, pb_3: 1 } },
        },
      ],
      decks: [
        {
          run: 'r',
          system: 'gen',
          condition: 'audience_conditioned',
          audience: 'learners',
          caseLabel: 'c1',
          file: 'd.pptx',
          bytes: 'x',
        },
      ],
    });
  });
  afterEach(async () => {
    await server.close();
    await cleanup();
  });

  it('parses messy answers, corrects invalid JSON once, fills missing judgments and logs unknown ids', async () => {
    let answerabilityCalls = 0;
    server.setHandler((request) => {
      if (request.system === ANSWERABILITY_SYSTEM) {
        answerabilityCalls += 1;
        if (answerabilityCalls === 1) return { text: 'I think pb_1 is covered but let me not use JSON.' };
        expect(request.text).toContain('[Slide 1]');
        expect(request.text).toContain('Energy use fell 48 percent.');
        return {
          text: 'Here you go:\n```json\n{"judgments": [{"probe_id": "pb_1", "covered": "yes", "answer": "48%", "cited_evidence": 1, "confidence": "95%"}, {"probe_id": "pb_404", "covered": true}, {"probe_id": "pb_3", "covered": false}]}\n```',
        };
      }
      if (request.system === CLAIM_EXTRACTION_SYSTEM)
        return {
          text: '[{"slide": 1, "claim": "Energy use fell 48 percent."}, {"slide": 1, "claim": "Costs fell 10 percent."}]',
        };
      return {
        text: '{"verdicts": [{"claim_id": "s1_c1", "label": "supported", "rationale": "stated"}, {"claim_id": "s1_c2", "label": "Unsupported", "rationale": "not in source"}]}',
      };
    });
    const { results } = await runEvaluation({
      dataDir: join(dir, 'data'),
      run: 'r',
      judge: 'openai:test-model',
      env: fakeProviderEnv(server),
      noCache: true,
      readDeck: async () => makeDeck(['Energy use fell 48 percent.\nCosts fell 10 percent.']),
    });
    expect(results[0]!.outcome).toBe('evaluated');
    expect(answerabilityCalls).toBe(2);
    const evalDir = results[0]!.evaluationDir;
    const scores = await readJsonlAll(join(evalDir, 'probe_scores.jsonl'), probeScoreSchema);
    expect(scores.map((s) => [s.probe_id, s.covered, s.cited_evidence, s.metadata.confidence])).toEqual([
      ['pb_1', true, 'Slide 1', 0.95],
      ['pb_2', false, '', 0],
      ['pb_3', false, '', 0],
    ]);
    expect(scores[0]!.metadata).toMatchObject({ judge: 'openai:test-model', judge_input_mode: 'text' });
    expect(scores[1]!.metadata.missing_judgment).toBe(true);
    const log = await readFile(join(evalDir, 'evaluate.log'), 'utf8');
    expect(log).toContain('pb_404');
    const correctness = await readJson(join(evalDir, 'correctness.json'), correctnessSchema);
    expect(correctness.claims.map((c) => c.label)).toEqual(['supported', 'unsupported']);
    expect(correctness.correctness).toBeCloseTo(2 / 3, 12);
    expect(correctness.judge).toBe('openai:test-model');

    // a second run reuses everything: no request reaches the server
    const before = server.requests.length;
    const again = await runEvaluation({
      dataDir: join(dir, 'data'),
      run: 'r',
      judge: 'openai:test-model',
      env: fakeProviderEnv(server),
      noCache: true,
      readDeck: async () => makeDeck(['Energy use fell 48 percent.\nCosts fell 10 percent.']),
    });
    expect(again.results[0]!.outcome).toBe('reused');
    expect(server.requests.length).toBe(before);
  });
});

describe('image mode (sparse deck, model judge)', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let server: FakeLlmServer;

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
    server = await startFakeLlmServer();
    await writeEvalFixture(join(dir, 'data'), {
      cases: [
        {
          caseLabel: 'c1',
          sourceText: 'Energy use fell 48 percent.',
          probes,
          weights: { learners: { pb_1: 1, pb_2: 1, pb_3: 1 } },
        },
      ],
      decks: [
        {
          run: 'r',
          system: 'nb',
          condition: 'audience_agnostic',
          audience: 'all',
          caseLabel: 'c1',
          file: 'd.pdf',
          bytes: blankPdf(2),
        },
      ],
    });
  });
  afterEach(async () => {
    await server.close();
    await cleanup();
  });

  it('reads and renders a real image-only PDF by default (no injected reader or renderer)', async () => {
    server.setHandler((request) =>
      request.system === ANSWERABILITY_SYSTEM
        ? { text: '{"judgments": []}' }
        : { text: request.system === CLAIM_EXTRACTION_SYSTEM ? '{"claims": []}' : '{"verdicts": []}' },
    );
    const { results } = await runEvaluation({
      dataDir: join(dir, 'data'),
      run: 'r',
      judge: 'openai:vision-model',
      env: fakeProviderEnv(server),
      noCache: true,
    });
    expect(results[0]!.outcome).toBe('evaluated');
    expect(await readdir(join(results[0]!.evaluationDir, 'rendered'))).toHaveLength(2);
    const answerability = server.requests.find((r) => r.system === ANSWERABILITY_SYSTEM)!;
    expect(JSON.stringify(answerability.body)).toContain('data:image/png;base64,');
    const scores = await readJsonlAll(
      join(results[0]!.evaluationDir, 'probe_scores.jsonl'),
      probeScoreSchema,
    );
    expect(scores.every((row) => row.metadata.judge_input_mode === 'image')).toBe(true);
  });

  it('sends rendered slides as images and records judge_input_mode image', async () => {
    server.setHandler((request) => {
      if (request.system === ANSWERABILITY_SYSTEM)
        return {
          text: '{"judgments": [{"probe_id": "pb_1", "covered": true, "answer": "48%", "cited_evidence": "Slide 2", "confidence": 0.8}]}',
        };
      if (request.system === CLAIM_EXTRACTION_SYSTEM) return { text: '{"claims": []}' };
      return { text: '{"verdicts": []}' };
    });
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const { results } = await runEvaluation({
      dataDir: join(dir, 'data'),
      run: 'r',
      judge: 'openai:vision-model',
      env: fakeProviderEnv(server),
      noCache: true,
      readDeck: async () => makeDeck(['', '']),
      renderSlides: async (_deck, outDir) => {
        await mkdir(outDir, { recursive: true });
        return Promise.all(
          [1, 2].map(async (index) => {
            const file = join(outDir, `slide-00${index}.png`);
            await writeFile(file, png);
            return { index, file, mediaType: 'image/png' as const };
          }),
        );
      },
    });
    expect(results[0]!.outcome).toBe('evaluated');
    const answerability = server.requests.find((r) => r.system === ANSWERABILITY_SYSTEM)!;
    expect(JSON.stringify(answerability.body)).toContain('data:image/png;base64,');
    expect(answerability.text).toContain('[Slide 2]');
    const scores = await readJsonlAll(
      join(results[0]!.evaluationDir, 'probe_scores.jsonl'),
      probeScoreSchema,
    );
    expect(scores.every((s) => s.metadata.judge_input_mode === 'image')).toBe(true);
    expect(scores[0]!.covered).toBe(true);
  });
});

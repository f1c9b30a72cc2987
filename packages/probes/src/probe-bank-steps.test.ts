import { describe, expect, it } from 'vitest';
import type { GeneratedProbe, GenerationOutput } from './generated-probe';
import { GroundingIndex } from './ground-evidence';
import {
  assembleProbeBank,
  groundProbe,
  orderCandidates,
  type ProbeCandidate,
  screenGeneratedProbes,
} from './probe-bank-steps';

const TEXT = [
  'Riverton Review',
  'Solar capacity in the region grew to 4.2 gigawatts in 2023.',
  'Storage costs are expected to fall by 30 percent before 2027.',
].join('\n');
const TITLE_END = 'Riverton Review'.length;

const probe = (question: string, answer: string, ...quotes: string[]): GeneratedProbe => ({
  question,
  answer,
  evidence: quotes.map((text) => ({ locator: 'para 1', text })),
  level: 1,
  modality: 'text',
  theme: 'result',
});
const output = (...probes: GeneratedProbe[]): GenerationOutput => ({ probes, malformed: 1, exchanges: [] });

describe('screenGeneratedProbes', () => {
  it('counts each probe once: filtered (by reason), ungrounded, page furniture, or kept', () => {
    const screened = screenGeneratedProbes(
      [
        {
          chunkIndex: 0,
          generationIndex: 0,
          output: output(
            probe('What capacity was reached?', '4.2 gigawatts', 'grew to 4.2 gigawatts in 2023'),
            probe('Which works are cited?', 'none', 'Solar capacity in the region'),
          ),
        },
        {
          chunkIndex: 0,
          generationIndex: 1,
          output: output(
            probe('What did wind reach?', '3 GW', 'grew to 4.2 gigawatts', 'Wind reached 3 gigawatts'),
            probe('What is the running title?', 'Riverton Review', 'Riverton Review'),
          ),
        },
      ],
      {
        text: TEXT,
        pages: [],
        furniture: [{ page: 1, start: 0, end: TITLE_END, kind: 'running_header' }],
      },
    );
    expect(screened).toMatchObject({ generated: 4, malformed: 2, ungrounded: 1 });
    expect(screened.filteredByReason).toMatchObject({ citation_list: 1, page_furniture: 1 });
    expect(screened.candidates.map((c) => [c.probe.answer, c.firstOffset])).toEqual([
      ['4.2 gigawatts', TEXT.indexOf('grew to')],
    ]);
  });
});

describe('groundProbe', () => {
  it('cites the page a quote starts on, keeps a model locator otherwise, and spans an empty one', () => {
    const index = new GroundingIndex(TEXT, [
      { page: 1, start: 0, end: 76 },
      { page: 2, start: 76, end: TEXT.length },
    ]);
    const quote = probe('How far will costs fall?', '30 percent', 'fall by 30 percent');
    expect(groundProbe(quote, index, true)?.probe.evidence[0]?.locator).toBe('page 2');
    expect(groundProbe(quote, index, false)?.probe.evidence[0]?.locator).toBe('para 1');
    const bare = { ...quote, evidence: [{ locator: '', text: 'fall by 30 percent' }] };
    const start = TEXT.indexOf('fall by');
    expect(groundProbe(bare, index, false)?.probe.evidence[0]?.locator).toBe(
      `chars ${start}-${start + 'fall by 30 percent'.length}`,
    );
    expect(groundProbe(probe('Q?', 'A', 'not in the source at all'), index, false)).toBeNull();
    expect(groundProbe(probe('Q?', 'A'), index, false)).toBeNull();
  });
});

const candidate = (
  answer: string,
  firstOffset: number,
  chunkIndex: number,
  hash = answer,
): ProbeCandidate => ({
  probe: probe(`What is ${answer}?`, answer, answer),
  chunkIndex,
  generationIndex: 0,
  contentHash: hash,
  firstOffset,
  evidenceOffsets: [firstOffset],
});

describe('orderCandidates', () => {
  it('orders by source position, then content hash, whatever chunk produced a probe', () => {
    const a = candidate('a', 10, 2, 'h2');
    const b = candidate('b', 10, 0, 'h1');
    const c = candidate('c', 3, 1);
    expect(orderCandidates([a, b, c]).map((x) => x.probe.answer)).toEqual(['c', 'b', 'a']);
    expect(orderCandidates([c, a, b]).map((x) => x.probe.answer)).toEqual(['c', 'b', 'a']);
  });
});

describe('assembleProbeBank', () => {
  it('keeps the first of duplicates, numbers the rest in order and records what each absorbed', () => {
    const capacity = candidate('4.2 gigawatts of solar capacity', 0, 0);
    const again = { ...capacity, chunkIndex: 1, generationIndex: 2 };
    const storage = candidate('storage costs fall by 30 percent', 50, 1);
    const { bank, duplicates } = assembleProbeBank([capacity, again, storage], {
      caseId: 'case_a',
      scene: 'policy_briefing',
      generator: 'scripted',
      chunkCount: 2,
    });
    expect(duplicates).toBe(1);
    expect(bank.map((p) => [p.probe_id, p.answer, p.metadata.merged_duplicates])).toEqual([
      ['pb_0001', '4.2 gigawatts of solar capacity', 1],
      ['pb_0002', 'storage costs fall by 30 percent', 0],
    ]);
    expect(bank[1]).toMatchObject({
      source_case_id: 'case_a',
      scene: 'policy_briefing',
      metadata: {
        source_chunk_index: 1,
        source_chunk_count: 2,
        generator: 'scripted',
        evidence_offsets: [50],
      },
    });
  });
});

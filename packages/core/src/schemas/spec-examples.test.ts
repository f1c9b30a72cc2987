import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors';
import { validateRecord } from '../validate-record';
import { audienceWeightSchema } from './audience-weight';
import { deckStatsSchema } from './deck-stats';
import { metricsSchema } from './metrics';
import { probeSchema } from './probe';
import { probeGenerationStatusSchema } from './probe-generation-status';
import { probeScoreSchema } from './probe-score';
import { runManifestSchema } from './run-manifest';
import { runSheetRowSchema } from './run-sheet-row';

// The example objects of spec 000 "Artifact Data Formats", verbatim, plus our own examples for the
// files spec 000 names without an example.
const examples = {
  probe: {
    schema: probeSchema,
    value: {
      probe_id: 'pb_0001',
      source_case_id: 'case_000',
      scene: 'academic_research_talk',
      question: 'What is the main claim?',
      answer: 'The source-supported answer.',
      evidence: [{ locator: 'Section 1', text: 'Evidence text' }],
      level: 2,
      modality: 'text',
      theme: 'method',
      metadata: {},
    },
    required: [
      'probe_id',
      'source_case_id',
      'scene',
      'question',
      'answer',
      'evidence',
      'level',
      'modality',
      'theme',
    ],
  },
  audience_weight: {
    schema: audienceWeightSchema,
    value: {
      probe_id: 'pb_0001',
      audience: 'specialists',
      utility_weight: 1.0,
      reason: 'Why this probe matters for the audience.',
      metadata: {},
    },
    required: ['probe_id', 'audience', 'utility_weight', 'reason'],
  },
  deck_stats: {
    schema: deckStatsSchema,
    value: {
      deck_path: 'data/runs/run/decks/case_000.pptx',
      slide_count: 8,
      visible_word_count: 700,
      extracted_text_path: 'data/runs/run/decks/case_000.txt',
      parser: 'pptx',
      warnings: [],
    },
    required: ['deck_path', 'slide_count', 'visible_word_count', 'extracted_text_path', 'parser', 'warnings'],
  },
  probe_score: {
    schema: probeScoreSchema,
    value: {
      probe_id: 'pb_0001',
      covered: true,
      answer: 'Deck-supported answer.',
      cited_evidence: 'Slide 3',
      metadata: {},
    },
    required: ['probe_id', 'covered', 'answer', 'cited_evidence'],
  },
  metrics: {
    schema: metricsSchema,
    value: {
      audience: 'specialists',
      tau_a: 0.7,
      included_probe_count: 42,
      available_utility: 39.5,
      recovered_utility: 24.0,
      coverage: 0.6076,
      efficiency_time: 3.2,
      efficiency_slide: 2.0,
      correctness: 0.9,
      safe_efficiency_time: 2.88,
    },
    required: [
      'audience',
      'tau_a',
      'included_probe_count',
      'available_utility',
      'recovered_utility',
      'coverage',
      'efficiency_time',
      'efficiency_slide',
    ],
  },
  probe_generation_status: {
    schema: probeGenerationStatusSchema,
    value: {
      case_id: 'case_000',
      status: 'complete',
      judge: 'lexical',
      k: 3,
      counts: { generated: 30, filtered: 2, ungrounded: 1, duplicates: 7, final: 20 },
      chunking: { source_chars: 1000000, chunk_chars: 0, chunk_overlap: 0, chunk_count: 1 },
      errors: [],
    },
    required: ['case_id', 'status', 'judge', 'k', 'counts', 'chunking'],
  },
  run_manifest: {
    schema: runManifestSchema,
    value: {
      stage: 'evaluate',
      created_at: '2026-11-29T12:00:00.000Z',
      xsb_version: '0.1.0',
      inputs: [{ role: 'deck', path: 'deck.pptx', sha256: 'a'.repeat(64) }],
      judges: { answerability: 'lexical' },
      settings: { batch_size: 12 },
      versions: { node: '20.20.2' },
    },
    required: ['stage', 'created_at', 'xsb_version', 'inputs', 'judges', 'settings'],
  },
  run_sheet_row: {
    schema: runSheetRowSchema,
    value: {
      system: 'xsb-baseline',
      condition: 'audience_conditioned',
      audience: 'learners',
      case_label: 'case_000',
      source_document: 'data/sources/case_000/source.pdf',
      prompt_path: 'prompts/learners.md',
      output_deck_path: 'data/runs/demo/decks/xsb-baseline/audience_conditioned/learners/case_000/deck.pptx',
    },
    required: ['system', 'condition', 'audience', 'case_label', 'source_document'],
  },
} as const;

describe('artifact schemas against the spec examples', () => {
  for (const [name, { schema, value, required }] of Object.entries(examples)) {
    it(`${name}: the example validates and round-trips unchanged`, () => {
      expect(validateRecord(schema, value)).toEqual(value);
    });

    for (const field of required) {
      it(`${name}: removing "${field}" fails naming the field`, () => {
        const broken: Record<string, unknown> = { ...value };
        delete broken[field];
        let error: unknown;
        try {
          validateRecord(schema, broken, { file: 'x.jsonl', line: 3 });
        } catch (caught) {
          error = caught;
        }
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).field).toBe(field);
        expect((error as Error).message).toContain(`x.jsonl:3`);
        expect((error as Error).message).toContain(`"${field}"`);
        expect((error as Error).message).toContain('required');
      });
    }
  }

  it('keeps unknown metadata and top-level fields (spec: extra fields may appear)', () => {
    const row = {
      ...examples.probe.value,
      extra_top: 1,
      metadata: { source_chunk_index: 0, nested: { model: 'x' } },
    };
    expect(validateRecord(probeSchema, row)).toEqual(row);
  });

  it('names the nested field of a bad evidence entry', () => {
    const row = { ...examples.probe.value, evidence: [{ locator: 'p1', text: '' }] };
    expect(() => validateRecord(probeSchema, row, { file: 'p.jsonl', line: 9 })).toThrow(
      /p\.jsonl:9.*evidence\[0\]\.text/,
    );
  });

  it('refuses NaN and out-of-range weights instead of storing them', () => {
    expect(() => validateRecord(metricsSchema, { ...examples.metrics.value, coverage: Number.NaN })).toThrow(
      /coverage/,
    );
    expect(() =>
      validateRecord(audienceWeightSchema, { ...examples.audience_weight.value, utility_weight: 1.5 }),
    ).toThrow(/utility_weight/);
  });

  it('allows a null coverage with its reason', () => {
    const row = { ...examples.metrics.value, coverage: null, coverage_null_reason: 'no probe reaches tau_a' };
    expect(validateRecord(metricsSchema, row).coverage).toBeNull();
  });
});

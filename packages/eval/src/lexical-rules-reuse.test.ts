import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LexicalEvalJudge } from './eval-judge';
import { LEXICAL_ANSWERABILITY_RULES, lexicalRulesKey } from './judge-answerability-lexically';
import { scoreProbesInBatches } from './score-probes-in-batches';
import { makeDeck } from './testing';

const probe = (id: string, question: string, answer: string) => ({
  probe_id: id,
  source_case_id: 'c',
  scene: 's',
  question,
  answer,
  evidence: [],
  level: 1,
  modality: 'text',
  theme: 't',
  metadata: {},
});

describe('lexical score rows of older rules', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
  });
  afterEach(() => cleanup());

  it('are judged again, not reused beside rows of the current rules', async () => {
    const deck = makeDeck(['Agenda\nPart 0: warm-up']);
    const probes = [probe('p1', 'How many components does the circle complement have?', '0')];
    const key = {
      judge: 'lexical',
      judge_input_mode: 'text' as const,
      deck_sha256: 'd'.repeat(64),
      probes_sha256: 'e'.repeat(64),
      batch_size: 12,
    };
    const finalFile = join(dir, 'probe_scores.jsonl');
    // a row as rules 1 wrote it: "0" anywhere on a slide covered the probe, no rules recorded
    const old = {
      probe_id: 'p1',
      covered: true,
      answer: 'Part 0',
      cited_evidence: 'Slide 1',
      metadata: { ...key, confidence: 1, batch: 0 },
    };
    await writeFile(finalFile, `${JSON.stringify(old)}\n`);
    const run = () =>
      scoreProbesInBatches({
        judge: new LexicalEvalJudge(),
        request: {
          mode: 'text',
          deck,
          deckText: 'Agenda\nPart 0: warm-up',
          slideImages: [],
          sourceContext: '',
        },
        probes,
        reuseKey: { ...key, ...lexicalRulesKey('lexical') },
        concurrency: 1,
        finalFile,
        partialFile: join(dir, 'probe_scores.partial.jsonl'),
        force: false,
      });
    const first = await run();
    expect(first).toMatchObject({ judgedBatches: 1, reusedBatches: 0 });
    expect(first.scores[0]).toMatchObject({ covered: false });
    expect(JSON.parse(await readFile(finalFile, 'utf8')).metadata.lexical_rules).toBe(
      LEXICAL_ANSWERABILITY_RULES,
    );
    expect(await run()).toMatchObject({ judgedBatches: 0, reusedBatches: 1 });
    expect(lexicalRulesKey('anthropic:claude')).toEqual({});
  });
});

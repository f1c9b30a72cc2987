export { copyOfflineDemo } from './testing-demo';

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Deck, Probe } from '@xsb/core';
import { countLedgerLines } from './count-ledger-lines';
import { LexicalEvalJudge } from './eval-judge';

/** A parsed deck built from slide texts (index from 1), for tests that inject `readDeck`. */
export function makeDeck(slideTexts: readonly string[], deckPath = 'deck.pptx'): Deck {
  const slides = slideTexts.map((text, i) => ({
    index: i + 1,
    title: text.split('\n')[0] ?? '',
    visible_text: text,
    notes: '',
    elements: [],
  }));
  return {
    deck_path: deckPath,
    format: 'pptx',
    parser: 'test',
    slide_count: slides.length,
    visible_word_count: slideTexts.join(' ').split(/\s+/).filter(Boolean).length,
    slide_width: 720,
    slide_height: 405,
    slides,
    warnings: [],
  };
}

export interface EvalFixtureCase {
  caseLabel: string;
  sourceText: string;
  probes: Probe[];
  /** utility weight per audience per probe id */
  weights: Record<string, Record<string, number>>;
}

/**
 * Writes a minimal data folder for stage 5: the source case (markdown + metadata), its source
 * context, probe bank and weights, and one placeholder deck file per given deck row.
 */
export async function writeEvalFixture(
  dataDir: string,
  fixture: {
    cases: EvalFixtureCase[];
    decks: Array<{
      run: string;
      system: string;
      condition: string;
      audience: string;
      caseLabel: string;
      file: string;
      bytes: string;
    }>;
  },
): Promise<void> {
  for (const item of fixture.cases) {
    const audiences = Object.keys(item.weights);
    const sourceDir = join(dataDir, 'sources', item.caseLabel);
    await mkdir(sourceDir, { recursive: true });
    await writeFile(join(sourceDir, 'source.md'), item.sourceText);
    await writeFile(
      join(sourceDir, 'source_metadata.json'),
      JSON.stringify({ title: item.caseLabel, scene: 'test', valid_audiences: audiences }),
    );
    const probesDir = join(dataDir, 'probes', item.caseLabel);
    await mkdir(join(probesDir, 'weights'), { recursive: true });
    await writeFile(join(probesDir, 'source_context.txt'), item.sourceText);
    await writeFile(
      join(probesDir, 'probes_deduped.jsonl'),
      item.probes.map((p) => `${JSON.stringify(p)}\n`).join(''),
    );
    for (const audience of audiences) {
      const rows = item.probes.map((p) => ({
        probe_id: p.probe_id,
        audience,
        utility_weight: item.weights[audience]![p.probe_id] ?? 0,
        reason: 'fixture',
        metadata: {},
      }));
      await writeFile(
        join(probesDir, 'weights', `${audience}.jsonl`),
        rows.map((r) => `${JSON.stringify(r)}\n`).join(''),
      );
    }
  }
  for (const deck of fixture.decks) {
    const dir = join(
      dataDir,
      'runs',
      deck.run,
      'decks',
      deck.system,
      deck.condition,
      deck.audience,
      deck.caseLabel,
    );
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, deck.file), deck.bytes);
  }
}

/**
 * A test run `r1` of `dataDir()` judged by the lexical judge (which logs each call to the run's
 * ledger) with batches of 2 and every deck read as `deck`: its `runEvaluation` options and its ledger.
 */
export function lexicalTestRun(dataDir: () => string, deck: Deck) {
  const ledger = () => join(dataDir(), 'runs', 'r1', 'usage_ledger.jsonl');
  return {
    ledger,
    ledgerLines: () => countLedgerLines(ledger()),
    options: () => ({
      dataDir: dataDir(),
      run: 'r1',
      batchSize: 2,
      readDeck: async () => deck,
      judge: new LexicalEvalJudge(ledger()),
    }),
  };
}

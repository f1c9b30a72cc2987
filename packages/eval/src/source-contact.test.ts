import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { correctnessSchema, hashBytes } from '@xsb/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EvalJudge, LexicalEvalJudge } from './eval-judge';
import { DEFAULT_CLAIM_SETTINGS, scoreDeckCorrectness } from './score-deck-correctness';
import { applySourceContact, sourceContactMiss } from './source-contact';
import { makeDeck } from './testing';

const SOURCE = [
  'Heat pumps in the pilot cut household energy use by 48 percent over two winters.',
  'The pilot covered 120 homes in three towns; installation averaged 9,500 dollars per home.',
  'Residents reported quieter bedrooms and steadier indoor temperatures.',
  'Acknowledgements: we thank the town councils and the residents for their time.',
  'This work was funded by the Regional Energy Agency under grant number 4711.',
].join('\n');

let cacheDir: string;
beforeEach(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), 'xsb-contact-'));
});
afterEach(async () => {
  await rm(cacheDir, { recursive: true, force: true });
});

async function score(slides: string[], judge: EvalJudge = new LexicalEvalJudge()) {
  const deck = makeDeck(slides);
  const deckText = slides.join('\n\n');
  return scoreDeckCorrectness({
    deck,
    deckText,
    deckSha256: hashBytes(deckText),
    sourceText: SOURCE,
    sourceSha256: hashBytes(SOURCE),
    judge,
    settings: DEFAULT_CLAIM_SETTINGS,
    cacheDir,
  });
}

describe('correctness of a deck that does not touch the source', () => {
  it('is null with the reason for an off-topic deck ("Box 1 / Test text"), not the prior 0.2', async () => {
    const { record } = await score(['Box 1\nTest text', 'Box 2\nTest text', 'Box 3', 'Box 4']);
    expect(record.claim_count).toBe(4);
    expect(record.unsupported_count).toBe(4);
    expect(record.correctness).toBeNull();
    expect(record.null_reason).toBe(
      'no claim of the deck touches the source (of 4 claims, 4 share no topic term with the source)',
    );
    expect(() => correctnessSchema.parse(record)).not.toThrow();
  });

  it('is null with the reason for a deck of acknowledgements only, although the source holds them', async () => {
    const { record } = await score([
      'Acknowledgements\nWe thank the town councils and the residents for their time.',
      'Funding\nThis work was funded by the Regional Energy Agency under grant number 4711.',
    ]);
    expect(record.supported_count).toBe(2);
    expect(record.correctness).toBeNull();
    expect(record.null_reason).toMatch(/of 2 claims, 2 are thanks, credit, contact or reference lines/);
  });

  it('counts neither a cover naming the topic nor a line copied from the acknowledgements without its cue', async () => {
    const { record } = await score([
      'Household energy use of heat pump homes',
      'Thanks\nThe town councils and the residents for their time.',
    ]);
    expect(record.claim_count).toBe(2);
    expect(record.correctness).toBeNull();
    expect(record.null_reason).toBe(
      'no claim of the deck touches the source (of 2 claims, 1 is a cover line and 1 is a thanks, credit, contact or reference line)',
    );
    // the same line as a statement of its own on a content slide touches the source
    const content = await score(['Results\nHeat pump homes cut household energy use by 48 percent.']);
    expect(content.record.correctness).toBe(1);
  });

  it('keeps a number when one claim touches the source, acknowledgements and off-topic lines included', async () => {
    const { record } = await score([
      'Results\nHeat pumps cut household energy use by 48 percent.',
      'Box 1\nWe thank the town councils and the residents for their time.',
    ]);
    expect(record.correctness).toBeCloseTo((2 + 1) / (2 + 1 + 1), 12);
    expect(record.null_reason).toBeUndefined();
  });

  it('applies the rule to a cached record written before it, and is idempotent', async () => {
    const first = await score(['Box 1', 'Box 2']);
    const file = join(cacheDir, `${first.record.cache_key}.json`);
    // an entry as older versions wrote it: the smoothed prior, no reason
    const stale = { ...first.record, correctness: 1 / 3 } as Record<string, unknown>;
    delete stale.null_reason;
    await writeFile(file, JSON.stringify(stale));
    const again = await score(['Box 1', 'Box 2']);
    expect(again.fromCache).toBe(true);
    expect(again.record.correctness).toBeNull();
    expect(applySourceContact(again.record, false)).toEqual(again.record);
    expect(JSON.parse(await readFile(file, 'utf8')).correctness).toBeCloseTo(1 / 3, 12);
  });

  it("trusts a model judge's supported verdict for a claim in other words (a translated claim)", () => {
    const claim = {
      text: 'Wärmepumpen senkten den Energieverbrauch um 48 Prozent.',
      label: 'supported' as const,
      snippets: [{ chunk_id: 'c0001', text: SOURCE, score: 1 }],
    };
    expect(sourceContactMiss(claim, true)).toBeUndefined();
    expect(sourceContactMiss(claim, false)).toBe('no_shared_term');
    expect(sourceContactMiss({ ...claim, text: 'We thank our funders.' }, true)).toBe('off_content');
  });

  it('does not let German function words count as a shared term', () => {
    const snippets = [
      { chunk_id: 'c0001', text: 'Die Gruppe und der Raum sind hier zusammenhängend.', score: 1 },
    ];
    expect(
      sourceContactMiss({ text: 'Die Katze und der Hund sind hier.', label: 'unsupported', snippets }, false),
    ).toBe('no_shared_term');
    expect(
      sourceContactMiss({ text: 'Der Raum ist kompakt.', label: 'unsupported', snippets }, false),
    ).toBeUndefined();
  });
});

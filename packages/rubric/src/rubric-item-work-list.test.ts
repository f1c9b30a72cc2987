import { join } from 'node:path';
import { callsPerStage, type Deck, type StageEvent } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { readDeck } from '@xsb/decks';
import { describeJudge, offlineJudge } from '@xsb/llm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateDeck } from './evaluate-deck';
import { loadPresentBenchCase } from './load-presentbench-case';
import type { RubricInstance } from './rubric-instance';
import { RUBRIC_ITEM_STAGE, rubricItemWorkList } from './rubric-item-work-list';
import { writeLayoutFixtureDecks } from './write-layout-fixture-decks';

const DATA = join(__dirname, '../../../fixtures/rubric/presentbench-layout/data');
const CASE = join(DATA, 'education/Computer_science_lectures/ch1_bits');

let instance: RubricInstance;
let deck: Deck;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const temp = await makeTempDir('xsb-rubric-work-list-');
  cleanup = temp.cleanup;
  instance = await loadPresentBenchCase(DATA, CASE);
  deck = await readDeck((await writeLayoutFixtureDecks(temp.dir)).clean);
});
afterAll(async () => cleanup?.());

describe('rubricItemWorkList', () => {
  it('lists one call per LLM item for a model judge, the check item as a rule, in sending order', () => {
    const units = rubricItemWorkList({ instance, deck, materials: [], judge: describeJudge('openai:gpt-x') });
    const kinds = units.map((unit) => unit.decision.kind);
    expect(kinds.filter((kind) => kind === 'rule')).toHaveLength(1);
    expect(callsPerStage(units)).toEqual({ [RUBRIC_ITEM_STAGE]: units.length - 1 });
    // the first LLM item of each tier warms the prefix cache: they lead the list
    expect(units.slice(0, 2).map((unit) => unit.input.warmsCache)).toEqual([true, true]);
    expect(units.slice(2).some((unit) => unit.input.warmsCache)).toBe(false);
    expect(new Set(units.map((unit) => unit.reuseKey)).size).toBe(1);
  });

  it("lists no call for the offline judge, and keeps a resumed evaluation's answers as reuse", async () => {
    const offline = rubricItemWorkList({ instance, deck, materials: [], judge: offlineJudge });
    expect(callsPerStage(offline)).toEqual({});
    const events: StageEvent[] = [];
    const evaluation = await evaluateDeck({
      instance,
      deck,
      materials: [],
      judge: offlineJudge,
      onEvent: (event) => events.push(event),
    });
    expect(events[0]).toMatchObject({
      type: 'stage-started',
      stage: RUBRIC_ITEM_STAGE,
      total: offline.length,
    });
    expect(events.filter((event) => event.type === 'unit-done')).toHaveLength(offline.length);
    expect(events.at(-1)).toMatchObject({ type: 'stage-finished', done: offline.length, failed: 0 });
    // Resumed by a model judge: every decided item is kept, only the unanswered would be asked.
    const resumed = rubricItemWorkList({
      instance,
      deck,
      materials: [],
      judge: describeJudge('openai:gpt-x'),
      resumeFrom: evaluation,
    });
    expect(resumed.every((unit) => unit.decision.kind === 'reuse')).toBe(true);
  });
});

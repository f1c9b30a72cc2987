import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseRankingsOf, readAnnotations } from './read-annotations';
import type { StudyRecord } from './schemas/study-record';

let root: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-study-answers-'));
});
afterAll(() => cleanup());

const deck = (label: string) => ({ label, slides: [`slides/${label}-1.webp`] });
const study: StudyRecord = {
  study: 's1',
  created_at: '2026-12-05T00:00:00.000Z',
  task: 'Rank the decks by overall quality for the stated audience and scene, best first.',
  sample: { requested: 2, seed: 1, strata: 'scene' },
  cases: [
    { case: 'raft', scene: 'lecture', audience: 'learners', decks: [deck('A'), deck('B'), deck('C')] },
    { case: 'heat', scene: 'pitch', audience: 'investors', decks: [deck('A'), deck('B')] },
  ],
};

async function answers(name: string, lines: string[]): Promise<string> {
  const file = join(root, name);
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

describe('readAnnotations', () => {
  it('reads an annotator file checked against the study, and gives the rankings per case', async () => {
    const file = await answers('ann-1.jsonl', [
      '{"case": "raft", "ranking": ["C", "A", "B"], "seconds": 41.5}',
      '',
      '{"case": "heat", "ranking": ["B", "A"], "seconds": 12}',
    ]);
    const read = await readAnnotations(file, study);
    expect(read.annotator).toBe('ann-1');
    expect(read.lines).toEqual([
      { case: 'raft', ranking: ['C', 'A', 'B'], seconds: 41.5 },
      { case: 'heat', ranking: ['B', 'A'], seconds: 12 },
    ]);
    const other = await readAnnotations(
      await answers('ann-2.jsonl', ['{"case": "raft", "ranking": ["A", "B", "C"], "seconds": 30}']),
      study,
    );
    const cases = caseRankingsOf(study, [read, other]);
    expect(cases.map((c) => [c.case, c.labels, [...c.rankings]])).toEqual([
      [
        'raft',
        ['A', 'B', 'C'],
        [
          ['ann-1', ['C', 'A', 'B']],
          ['ann-2', ['A', 'B', 'C']],
        ],
      ],
      ['heat', ['A', 'B'], [['ann-1', ['B', 'A']]]],
    ]);
  });

  it.each([
    [
      'an unknown case',
      '{"case": "nope", "ranking": ["A", "B"], "seconds": 1}',
      /:1: field "case": no case "nope"/,
    ],
    [
      'a label the case does not have',
      '{"case": "heat", "ranking": ["A", "C"], "seconds": 1}',
      /:1: field "ranking": label "C" is not a deck of case "heat" \(its labels: A, B\)/,
    ],
    [
      'a ranking that is not a permutation',
      '{"case": "raft", "ranking": ["A", "A", "B"], "seconds": 1}',
      /:1: field "ranking": the ranking must name each of the case's 3 decks once/,
    ],
    [
      'a ranking that leaves a deck out',
      '{"case": "raft", "ranking": ["A", "B"], "seconds": 1}',
      /:1: field "ranking": the ranking must name each of the case's 3 decks once/,
    ],
    ['malformed JSON', '{"case": "raft", "ranking": [', /:1: not valid JSON/],
    ['a negative time', '{"case": "heat", "ranking": ["A", "B"], "seconds": -2}', /:1: field "seconds"/],
    [
      'an unknown field',
      '{"case": "heat", "ranking": ["A", "B"], "seconds": 2, "system": "x"}',
      /:1: .*system/,
    ],
  ])('refuses %s, naming the file, the line and the field', async (_what, line, message) => {
    const file = await answers('bad.jsonl', [line]);
    await expect(readAnnotations(file, study)).rejects.toThrow(message);
    await expect(readAnnotations(file, study)).rejects.toThrow(file);
  });

  it('refuses a second answer for one case, naming both lines', async () => {
    const file = await answers('twice.jsonl', [
      '{"case": "heat", "ranking": ["A", "B"], "seconds": 3}',
      '{"case": "raft", "ranking": ["A", "B", "C"], "seconds": 3}',
      '{"case": "heat", "ranking": ["B", "A"], "seconds": 4}',
    ]);
    await expect(readAnnotations(file, study)).rejects.toThrow(
      /twice\.jsonl:3: field "case": a second answer for case "heat" \(the first is on line 1\)/,
    );
  });

  it('refuses a file whose name is not an annotator id', async () => {
    const file = await answers('bad name.jsonl', ['{"case": "heat", "ranking": ["A", "B"], "seconds": 3}']);
    await expect(readAnnotations(file, study)).rejects.toThrow(/the file name must be the annotator id/);
  });
});

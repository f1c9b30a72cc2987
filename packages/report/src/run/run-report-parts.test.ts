import { describe, expect, it } from 'vitest';
import { safeId } from '../html/escape-html';
import { evaluationsByDeck, runReportToc, thumbnailNote } from './build-run-report';
import type { EvaluationView } from './read-run-report-data';

const view = (deckPath: string | null, id: string) => ({ deckPath, id }) as unknown as EvaluationView;

describe('the run report parts', () => {
  it('groups evaluations by deck, decks in path order, without the deckless ones', () => {
    const byDeck = evaluationsByDeck([
      view('b.pptx', '1'),
      view(null, '2'),
      view('a.pdf', '3'),
      view('b.pptx', '4'),
    ]);
    expect(
      [...byDeck].map(([path, list]) => [path, list.map((e) => (e as unknown as { id: string }).id)]),
    ).toEqual([
      ['a.pdf', ['3']],
      ['b.pptx', ['1', '4']],
    ]);
  });
  it('lists problems in the table of contents only when there are some', () => {
    expect(runReportToc(['novice'], 0).map(([id]) => id)).toEqual([
      'measured',
      safeId('audience', 'novice'),
      'evaluations',
      'probes',
      'decks',
    ]);
    expect(runReportToc([], 2)[1]).toEqual(['problems', 'Problems (2)']);
  });
  it('says how the slides are shown', () => {
    expect(thumbnailNote('off', 0)).toBe('Thumbnails are off (--thumbnails off): slides show their text.');
    expect(thumbnailNote('small', 1)).toMatch(
      /^Thumbnails small \(\d+ px WebP\); 1 deck without them \(each says why\)\.$/,
    );
  });
});

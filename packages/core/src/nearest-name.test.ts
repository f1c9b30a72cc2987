import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance, nearestName } from './nearest-name';

describe('nearestName', () => {
  it('measures edits', () => {
    expect(editDistance('generator', 'generators')).toBe(1);
    expect(editDistance('fressh', 'fresh')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('inptu', 'input')).toBe(1);
  });

  it('finds a likely typo and nothing for an unrelated word', () => {
    expect(nearestName('generator', ['judge', 'generators', 'run'])).toBe('generators');
    expect(nearestName('Fressh', ['fresh', 'stale'])).toBe('fresh');
    expect(nearestName('colour', ['judge', 'run', 'dataDir'])).toBeUndefined();
    expect(didYouMean('pptagnet', ['pptagent'])).toBe(' (did you mean "pptagent"?)');
    expect(didYouMean('zzz', ['pptagent'])).toBe('');
  });
});

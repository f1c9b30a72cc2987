import { describe, expect, it } from 'vitest';
import { InputError } from './errors';
import { assertSafePathPart, RunLayout } from './run-layout';

const layout = new RunLayout('/data');
const hostile = [
  '..',
  '.',
  '/etc',
  'a/b',
  'a\\b',
  '',
  '   ',
  '\0',
  'case\u0000x',
  'tab\there',
  'C:evil',
  'x'.repeat(201),
];

describe('assertSafePathPart', () => {
  it.each(hostile)('refuses %j', (value) => {
    expect(() => assertSafePathPart(value, 'case label')).toThrow(InputError);
  });

  it('accepts ordinary names, including dots and unicode', () => {
    for (const name of ['case_000', 'xsb-baseline', 'v1.2', 'décks', '案例']) {
      expect(assertSafePathPart(name, 'name')).toBe(name);
    }
  });

  it('says which value and why', () => {
    expect(() => assertSafePathPart('../x', 'system')).toThrow(
      'system "../x" cannot be used as a path part: it holds a path separator',
    );
  });
});

describe('RunLayout', () => {
  it('maps names to the spec 000 paths', () => {
    const deck = {
      run: 'demo',
      system: 'xsb-baseline',
      condition: 'audience_conditioned',
      audience: 'learners',
      caseLabel: 'case_000',
    };
    expect(layout.deckDir(deck)).toBe(
      '/data/runs/demo/decks/xsb-baseline/audience_conditioned/learners/case_000',
    );
    expect(layout.weightsFile('case_000', 'specialists')).toBe(
      '/data/probes/case_000/weights/specialists.jsonl',
    );
    expect(layout.probesFile('case_000')).toBe('/data/probes/case_000/probes_deduped.jsonl');
    expect(layout.rawChunkDir('case_000', 3)).toBe('/data/probes/case_000/raw/chunk_03');
    expect(layout.sourceMetadataFile('case_000')).toBe('/data/sources/case_000/source_metadata.json');
    expect(layout.compactMetricsFile('demo', 'sys', 'learners', 'case_000')).toBe(
      '/data/runs/demo/metrics/sys/learners/case_000.json',
    );
    expect(layout.correctnessCacheDir('demo')).toBe('/data/runs/demo/correctness_cache');
    expect(layout.summaryDir('demo')).toBe('/data/runs/demo/summary');
    expect(layout.batchStateDir('demo')).toBe('/data/runs/demo');
    expect(layout.batchStateDir()).toBe('/data');
    expect(() => layout.batchStateDir('..')).toThrow(InputError);
  });

  it.each([
    ['system', '..'],
    ['system', '/etc'],
    ['caseLabel', 'a/b'],
    ['caseLabel', ''],
    ['audience', '\0'],
    ['run', '..'],
  ] as const)('refuses a hostile %s %j in a deck path', (key, value) => {
    const deck = {
      run: 'demo',
      system: 's',
      condition: 'audience_agnostic',
      audience: 'learners',
      caseLabel: 'c',
    };
    expect(() => layout.deckDir({ ...deck, [key]: value })).toThrow(InputError);
    expect(() => layout.evaluationDir({ ...deck, [key]: value })).toThrow(InputError);
  });

  it('refuses hostile names in every other path', () => {
    expect(() => layout.weightsFile('c', '../../etc/passwd')).toThrow(InputError);
    expect(() => layout.probesDir('..')).toThrow(InputError);
    expect(() => layout.sourceDir('/etc')).toThrow(InputError);
  });
});

import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compareCodePoints } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { describe, expect, it } from 'vitest';
import { BenchLayout } from '../bench-layout';
import type { BenchSplitRow } from '../schemas/bench-split';
import { assignSplits, type SplitCandidate } from './assign-splits';
import { discoverBenchCases } from './bench-cases';
import { readSplits, splitCases } from './bench-splits';
import { caseLanguage } from './case-language';

const now = new Date('2026-01-02T03:04:05Z');
const candidates = (n: number, stratum: (i: number) => string): SplitCandidate[] =>
  Array.from({ length: n }, (_, i) => ({
    case: `case_${String(i).padStart(3, '0')}`,
    kind: 'source',
    stratum: stratum(i),
  }));
const testCount = (rows: readonly BenchSplitRow[]) => rows.filter((row) => row.split === 'test').length;

describe('assignSplits', () => {
  it('depends only on the ids: any input order gives the same rows', () => {
    const all = candidates(40, (i) => `s${i % 4}`);
    const one = assignSplits([], all, { now });
    const shuffled = [...all].sort((a, b) => compareCodePoints(b.case, a.case));
    expect(assignSplits([], shuffled, { now })).toEqual(one);
    expect(testCount(one)).toBe(12);
    // 10 per stratum → 3 test each.
    for (let s = 0; s < 4; s += 1) expect(testCount(one.filter((row) => row.stratum === `s${s}`))).toBe(3);
  });

  it('keeps about the share overall when every stratum is tiny (largest remainder)', () => {
    const rows = assignSplits(
      [],
      candidates(20, (i) => `tiny${i}`),
      { now },
    );
    // 20 strata of 1 case: each has quota 0.3, so per-stratum rounding would give no test case at all.
    expect(testCount(rows)).toBe(6);
  });

  it('never changes an existing row and fills only the gaps, staying near the share', () => {
    const first = assignSplits(
      [],
      candidates(10, () => 'a'),
      { now },
    );
    expect(testCount(first)).toBe(3);
    const grown = candidates(20, () => 'a');
    const added = assignSplits(first, grown, { now: new Date('2026-02-01T00:00:00Z') });
    expect(added.map((row) => row.case)).toEqual(grown.slice(10).map((c) => c.case));
    expect(testCount([...first, ...added])).toBe(6);
    expect(assignSplits([...first, ...added], grown, { now })).toEqual([]);
    // Existing rows that over-fill test are kept; the new cases all go to dev then.
    const allTest = first.map((row) => ({ ...row, split: 'test' as const }));
    const more = assignSplits(allTest, grown, { now });
    expect(testCount(more)).toBe(0);
  });

  it('orders cases inside a stratum by the sha256 of their id', () => {
    const rows = assignSplits(
      [],
      candidates(10, () => 'a'),
      { now, testShare: 0.5 },
    );
    const sha = (id: string) => createHash('sha256').update(id).digest('hex');
    const byHash = rows.map((row) => row.case).sort((a, b) => compareCodePoints(sha(a), sha(b)));
    expect(
      rows
        .filter((row) => row.split === 'test')
        .map((row) => row.case)
        .sort(),
    ).toEqual(byHash.slice(0, 5).sort());
    expect(rows.every((row) => row.assigned_at === now.toISOString())).toBe(true);
  });
});

describe('bench cases and the stored split', () => {
  it('finds source cases and rubric instances, joins equal ids and appends rows under a lock', async () => {
    const { dir, cleanup } = await makeTempDir('xsb-bench-split-');
    try {
      const source = async (id: string, meta: object) => {
        await mkdir(join(dir, 'sources', id), { recursive: true });
        await writeFile(join(dir, 'sources', id, 'source.md'), `# ${id}\n\nSome text.\n`);
        await writeFile(join(dir, 'sources', id, 'source_metadata.json'), JSON.stringify(meta));
      };
      await source('talk_a', { scene: 'academic_research_talk', language: 'en' });
      await source('talk_b', { scene: 'academic_research_talk' });
      await source('vortrag', { scene: 'academic_research_talk', language: 'de' });
      const instance = async (id: string, category: string) => {
        const folder = join(dir, 'rubric', id);
        await mkdir(folder, { recursive: true });
        await writeFile(join(folder, 'material.md'), 'Material.\n');
        await writeFile(
          join(folder, 'instance.yaml'),
          [
            `id: ${id}`,
            `category: ${category}`,
            'language: en',
            'materials: [material.md]',
            'instruction: Make 3 to 5 slides.',
            'slide_range: {min: 3, max: 5}',
            'prefixes: {material_independent: "Judge.", material_dependent: "Judge with files."}',
            'checklists:',
            '  fundamentals: [{check: slide_count, params: {min_count: 3, max_count: 5}}]',
            '  design: ["Is the design clean?"]',
            '  completeness: ["Is it complete?"]',
            '  correctness: ["Is it correct?"]',
            '  fidelity: {template: "Is slide {slide} faithful?"}',
          ].join('\n'),
        );
      };
      await instance('talk_a', 'academia');
      await instance('pb_only', 'education');
      const { cases, failures } = await discoverBenchCases(dir);
      expect(failures).toEqual([]);
      expect(cases.map((c) => [c.case, c.kind, c.stratum])).toEqual([
        ['pb_only', 'rubric', 'education×en'],
        ['talk_a', 'both', 'academic_research_talk×en'],
        ['talk_b', 'source', 'academic_research_talk×und'],
        ['vortrag', 'source', 'academic_research_talk×de'],
      ]);
      expect(caseLanguage({})).toBe('und');
      const layout = new BenchLayout(dir);
      const first = await splitCases(layout, cases, { now });
      expect(first.added).toHaveLength(4);
      const again = await splitCases(layout, cases, { now: new Date() });
      expect(again.added).toEqual([]);
      expect(await readSplits(layout)).toEqual(first.rows);
    } finally {
      await cleanup();
    }
  });
});

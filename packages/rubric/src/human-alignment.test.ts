import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { describe, expect, it } from 'vitest';
import {
  alignWithHumans,
  formatScoresCsv,
  humanAgreement,
  meanRhoInterval,
  parseCsv,
  readHumanRankings,
  readSystemScores,
  scoresFromRunSummaries,
} from './human-alignment';

describe('meanRhoInterval', () => {
  it('bootstraps reproducibly from its seed', () => {
    const values = [0.2, 0.5, 0.9, -0.1, 0.4];
    const a = meanRhoInterval(values, { seed: 7, resamples: 500 });
    const b = meanRhoInterval(values, { seed: 7, resamples: 500 });
    expect(a).toEqual(b);
    expect(a?.low).toBeLessThan(0.38);
    expect(a?.high).toBeGreaterThan(0.38);
    expect(meanRhoInterval(values, { seed: 8, resamples: 500 })).not.toEqual(a);
  });
});

describe('alignWithHumans', () => {
  const rankings = [
    // sample s1: humans rank A > B > C; s2: C > B > A; s3: all scores tie → skipped
    ...['A', 'B', 'C'].map((system, index) => ({ sample_id: 's1', system, rank: index + 1, annotator: 'h' })),
    ...['C', 'B', 'A'].map((system, index) => ({ sample_id: 's2', system, rank: index + 1, annotator: 'h' })),
    ...['A', 'B'].map((system, index) => ({ sample_id: 's3', system, rank: index + 1, annotator: 'h' })),
  ];
  const scores = [
    { sample_id: 's1', system: 'A', score: 80 },
    { sample_id: 's1', system: 'B', score: 60 },
    { sample_id: 's1', system: 'C', score: 70 },
    { sample_id: 's2', system: 'A', score: 10 },
    { sample_id: 's2', system: 'B', score: 20 },
    { sample_id: 's2', system: 'C', score: 30 },
    { sample_id: 's3', system: 'A', score: 5 },
    { sample_id: 's3', system: 'B', score: 5 },
  ];
  it('averages per-sample rho with the right sign and skips undefined samples', () => {
    const result = alignWithHumans('ours', rankings, scores, { seed: 1, resamples: 200 });
    expect(result.per_sample.s1).toBeCloseTo(0.5, 12);
    expect(result.per_sample.s2).toBeCloseTo(1, 12);
    expect(result.samples_skipped).toEqual(['s3']);
    expect(result.mean_rho).toBeCloseTo(0.75, 12);
    expect(result.interval).toMatchObject({ seed: 1, resamples: 200, confidence: 0.95 });
  });
  it('measures inter-annotator agreement against the other annotators', () => {
    const two = [
      ...['A', 'B', 'C'].map((system, index) => ({
        sample_id: 's1',
        system,
        rank: index + 1,
        annotator: 'h1',
      })),
      ...['A', 'C', 'B'].map((system, index) => ({
        sample_id: 's1',
        system,
        rank: index + 1,
        annotator: 'h2',
      })),
    ];
    expect(humanAgreement(two)?.mean_rho).toBeCloseTo(0.5, 12);
    expect(humanAgreement(rankings)).toBeNull();
  });
});

describe('CSV inputs', () => {
  it('parses quoted fields and reports bad numbers with file and line', async () => {
    expect(parseCsv('a,b\r\n"x, y","he said ""hi"""\r\n', 'f.csv')).toEqual([
      { line: 2, cells: { a: 'x, y', b: 'he said "hi"' } },
    ]);
    const { dir, cleanup } = await makeTempDir();
    try {
      // The blank line and the two-line quoted cell count, so the error names the file's real line.
      await writeFile(join(dir, 'r.csv'), 'sample_id,system,rank\n"s\n1",A,1\n\ns1,B,two\n');
      await expect(readHumanRankings(join(dir, 'r.csv'))).rejects.toThrow(/r\.csv:5.*rank/);
      await writeFile(join(dir, 's.csv'), 'sample_id,system\ns1,A\n');
      await expect(readSystemScores(join(dir, 's.csv'))).rejects.toThrow(/missing column "score"/);
      await writeFile(join(dir, 's.json'), JSON.stringify([{ system: 'A', score: 1 }]));
      await expect(readSystemScores(join(dir, 's.json'))).rejects.toThrow(
        /s\.json: field "\[0\]\.sample_id"/,
      );
    } finally {
      await cleanup();
    }
  });
});

describe('scores from run summaries', () => {
  it('turns one summary per system into alignment scores and CSV that reads back', async () => {
    const row = (id: string, paper: number | null) => ({
      instance_id: id,
      category: 'education' as const,
      deck_path: null,
      status: 'evaluated' as const,
      error: null,
      paper_total_percent: paper,
      presentbench_total_percent: paper === null ? null : paper / 2,
      error_count: 0,
      not_judged_count: 0,
      presentbench_result: null,
      presentbench_score: null,
    });
    const summary = (rows: ReturnType<typeof row>[]) => ({
      judge: 'x',
      parser: 'strict' as const,
      rows,
      overall: { count: rows.length, paper_mean_percent: null, presentbench_mean_percent: null },
      categories: {},
    });
    const scores = scoresFromRunSummaries(
      [
        { system: 'gen,B', summary: summary([row('c/1', 40), row('c/2', null)]) },
        { system: 'genA', summary: summary([row('c/1', 60), row('c/2', 70)]) },
      ],
      'presentbench',
    );
    expect(scores).toEqual([
      { sample_id: 'c/1', system: 'gen,B', score: 20 },
      { sample_id: 'c/1', system: 'genA', score: 30 },
      { sample_id: 'c/2', system: 'genA', score: 35 },
    ]);
    const { dir, cleanup } = await makeTempDir();
    try {
      await writeFile(join(dir, 'scores.csv'), formatScoresCsv(scores));
      expect(await readSystemScores(join(dir, 'scores.csv'))).toEqual(scores);
    } finally {
      await cleanup();
    }
  });
});

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAggregation } from './run-aggregation';
import { writeCompactMetrics } from './testing';

describe('runAggregation over compact metric files', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
  });
  afterEach(() => cleanup());

  it('groups by (system_id, audience) with means, intervals, n and reproducible bytes', async () => {
    const root = join(dir, 'metrics');
    await writeCompactMetrics(root, 'gen__audience_agnostic', 'learners', 'c1', { coverage: 0.2 });
    await writeCompactMetrics(root, 'gen__audience_agnostic', 'learners', 'c2', { coverage: 0.4 });
    await writeCompactMetrics(root, 'gen__audience_agnostic', 'learners', 'c3', {
      coverage: null,
      efficiency_time: null,
    });
    await writeCompactMetrics(root, 'gen__audience_agnostic', 'specialists', 'c1', { coverage: 0.9 });
    await writeCompactMetrics(root, 'other', 'learners', 'c1', { coverage: 0.7, correctness: 0.5 });
    await writeFile(
      join(root, 'other', 'learners', 'broken.json'),
      JSON.stringify({ audience: 'learners', tau_a: 'x' }),
    );
    await writeFile(join(root, 'other', 'learners', 'notes.json'), JSON.stringify({ hello: 1 }));
    await writeFile(join(root, 'other', 'learners', 'torn.json'), '{"audience": "learners", "tau_a"');

    const out = join(dir, 'out');
    const { summary } = await runAggregation([root], out, { seed: 3, resamples: 300 });
    expect(summary.groups.map((g) => `${g.system_id}/${g.audience}`)).toEqual([
      'gen__audience_agnostic/learners',
      'gen__audience_agnostic/specialists',
      'other/learners',
    ]);
    const learners = summary.groups[0]!;
    expect(learners.system).toBe('gen');
    expect(learners.condition).toBe('audience_agnostic');
    const coverage = learners.metrics.find((m) => m.metric === 'coverage')!;
    expect(coverage.n).toBe(2);
    expect(coverage.null_count).toBe(1);
    expect(coverage.mean).toBeCloseTo(0.3, 12);
    expect(coverage.ci_low!).toBeGreaterThanOrEqual(0.2);
    expect(coverage.ci_high!).toBeLessThanOrEqual(0.4);
    expect(summary.groups[2]!.condition).toBeNull();
    expect(summary.skipped.map((s) => s.file)).toEqual([
      '../metrics/other/learners/broken.json',
      '../metrics/other/learners/torn.json',
    ]);
    expect(summary.skipped[1]!.reason).toMatch(/not valid JSON/);

    const firstJson = await readFile(join(out, 'summary.json'), 'utf8');
    await runAggregation([root], out, { seed: 3, resamples: 300 });
    expect(await readFile(join(out, 'summary.json'), 'utf8')).toBe(firstJson);

    const csv = await readFile(join(out, 'summary.csv'), 'utf8');
    expect(csv.split('\n')[0]).toBe(
      'system_id,system,condition,audience,metric,n,null_count,mean,ci_low,ci_high,tau_a,judges,' +
        'offline_judges,bootstrap_seed,bootstrap_resamples,included_probes_min,included_probes_median,' +
        'included_probes_max,thin,missing_cases',
    );
    // other/learners has case c1 only, where gen/learners has c1, c2, c3: the CSV line says so
    expect(csv).toContain(
      'other,other,,learners,correctness,1,0,0.5,0.5,0.5,0.7,,false,3,300,4,4,4,true,c2 c3',
    );
    const report = await readFile(join(out, 'report.md'), 'utf8');
    expect(report).toContain('## Audience: learners');
    expect(report).toMatch(/\| gen__audience_agnostic \| 3 \| 4 \| 0\.300 \[0\.\d{3}, 0\.\d{3}\] \(n=2\) \|/);
    // a group of one row shows its value without a (zero-width) interval
    expect(report).toContain(
      '| other | 1 | 4 | 0.700 | 1.000 | 0.500 | – | 0.500 | – | thin: median 4 probes/deck < 10; ' +
        'n differs: cases c2, c3 missing for system other |',
    );
    expect(report).toContain('interval [low, high] (300 resamples, seed 3)');
  });

  it('keeps only the selected rows and refuses a value that names nothing, listing the known ones', async () => {
    const root = join(dir, 'metrics');
    await writeCompactMetrics(root, 'gen__audience_agnostic', 'learners', 'c1', {});
    await writeCompactMetrics(root, 'gen__audience_agnostic', 'specialists', 'c1', {});
    await writeCompactMetrics(root, 'other__audience_agnostic', 'learners', 'c2', {});
    const out = join(dir, 'out');
    const { summary } = await runAggregation([root], out, {
      filters: { audiences: ['learners'], cases: ['c1'] },
    });
    expect(summary.groups.map((g) => `${g.system_id}/${g.audience}`)).toEqual([
      'gen__audience_agnostic/learners',
    ]);
    await expect(
      runAggregation([root], out, { filters: { systems: ['gen', 'nope'] } }),
    ).rejects.toMatchObject({
      kind: 'usage',
      message: expect.stringMatching(
        /^unknown system "nope" among the metric rows of .* \(known: gen, other\)$/,
      ),
    });
    await expect(
      runAggregation([root], out, { filters: { systems: ['other'], cases: ['c1'] } }),
    ).rejects.toThrow(/no metric row matches all the filters at once/);
  });
});

import { appendFile, copyFile, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RunLayout } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { copyOfflineDemo } from '@xsb/eval/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runXsb, type XsbArgs } from '../testing-cli';

let root: string;
let cleanup: () => Promise<void>;
let dataDir: string;
beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-aggregate-design-'));
  ({ dataDir } = await copyOfflineDemo(join(root, 'demo')));
}, 300_000);
afterAll(() => cleanup());

const run = (args: XsbArgs) => runXsb(args, { cwd: root, env: { PATH: process.env.PATH ?? '' } });

interface Summary {
  metric_families?: Array<{ family: string; file: string; metrics: string[]; rows: number }>;
  groups: Array<{ system_id: string; metrics: Array<{ metric: string; n: number; mean: number | null }> }>;
  skipped: Array<{ file: string; reason: string }>;
}

describe('xsb aggregate with design.json', () => {
  it('summarises the design metrics of the jobs that have them, and skips one measured from another deck', async () => {
    const before = JSON.parse(
      (await run(['aggregate', '--data', dataDir, '--run', 'demo', '--json'])).stdout,
    ) as Summary;
    expect(before.metric_families).toBeUndefined();

    // The imported PDF deck: measured without LibreOffice, for each audience of its case, which gets the deck
    // itself as its reference deck.
    const deck = join(dataDir, 'runs', 'demo', 'decks', 'notebooklm', 'audience_agnostic', 'all');
    const [caseDir] = await readdir(deck);
    const [pdf] = (await readdir(join(deck, caseDir!))).filter((name) => name.endsWith('.pdf'));
    await copyFile(
      join(deck, caseDir!, pdf!),
      join(new RunLayout(dataDir).sourceDir(caseDir!), 'reference.pdf'),
    );
    const designed = await run(['design', '--data', dataDir, '--run', 'demo', '--system', 'notebooklm']);
    expect(designed.code).toBe(0);
    const aggregated = await run(['aggregate', '--data', dataDir, '--run', 'demo', '--json']);
    expect(aggregated.code).toBe(0);
    const summary = JSON.parse(aggregated.stdout) as Summary;
    expect(summary.metric_families).toEqual([
      expect.objectContaining({ family: 'design', file: 'design.json', rows: expect.any(Number) }),
      expect.objectContaining({ family: 'reference', file: 'reference.json', rows: expect.any(Number) }),
    ]);
    const notebooklm = summary.groups.filter((group) => group.system_id === 'notebooklm__audience_agnostic');
    expect(notebooklm.length).toBeGreaterThan(0);
    for (const group of notebooklm) {
      const contrast = group.metrics.find((metric) => metric.metric === 'design.contrast_median')!;
      expect(contrast).toMatchObject({ n: 1, mean: expect.any(Number) });
      expect(contrast.mean!).toBeGreaterThan(1);
      // Its own reference: ROUGE-L 1, in a family of its own.
      expect(group.metrics.find((metric) => metric.metric === 'reference.rouge_l')).toMatchObject({
        n: 1,
        mean: 1,
      });
    }
    const baseline = summary.groups.find((group) => group.system_id.startsWith('xsb-baseline'))!;
    expect(baseline.metrics.find((metric) => metric.metric === 'design.colorfulness')).toMatchObject({
      n: 0,
      mean: null,
    });
    const report = await readFile(join(dataDir, 'runs', 'demo', 'summary', 'report.md'), 'utf8');
    expect(report).toMatch(
      /^design \(.*; from design\.json\): deck means computed from the rendered slides/m,
    );
    expect(report).toContain('| system | colorfulness | contrast_min |');

    // A deck changed after it was measured: its numbers are not averaged in, the file is named with the reason.
    await appendFile(join(deck, caseDir!, pdf!), '\n% edited\n');
    const stale = await run(['aggregate', '--data', dataDir, '--run', 'demo']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(
      /skipped .*notebooklm.*design\.json: measured from a deck that is no longer there as it was/,
    );
  }, 120_000);
});

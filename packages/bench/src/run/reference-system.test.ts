import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { exitCodeFor, RunLayout } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { describe, expect, it } from 'vitest';
import { chooseReference, referenceReason, runSheetSystemOrder } from './reference-system';

const row = (system: string, condition: string, line: number) => ({
  system,
  condition,
  audience: condition === 'audience_agnostic' ? 'all' : 'novice',
  case_label: 'c1',
  status: 'done',
  output_deck_path: `runs/r/decks/${system}/${condition}/c1/deck.pptx`,
  message: '',
  line,
});

const summary = (rows: ReturnType<typeof row>[]) =>
  JSON.stringify({
    run_sheet: 'run_sheet.csv',
    rows_total: rows.length,
    rows_selected: rows.length,
    done: rows.length,
    skipped: 0,
    failed: 0,
    shard: null,
    rows,
  });

describe('the default reference', () => {
  it("reads the run sheet's system order from the deck batch summaries, by sheet line", async () => {
    const { dir, cleanup } = await makeTempDir('xsb-bench-reference-');
    try {
      const layout = new RunLayout(dir);
      expect(await runSheetSystemOrder(layout, 'r')).toEqual([]);
      await mkdir(layout.decksRoot('r'), { recursive: true });
      // Shards of one sheet: the order is the sheet's lines, whichever shard ran them.
      await writeFile(
        join(layout.decksRoot('r'), 'batch_summary.shard-0-of-2.json'),
        summary([row('zeta-gen', 'audience_conditioned', 3), row('zeta-gen', 'audience_agnostic', 2)]),
      );
      await writeFile(
        join(layout.decksRoot('r'), 'batch_summary.shard-1-of-2.json'),
        summary([row('xsb-baseline', 'audience_conditioned', 4), row('zeta-gen', 'audience_agnostic', 5)]),
      );
      await writeFile(join(layout.decksRoot('r'), 'other.json'), '{}');
      expect(await runSheetSystemOrder(layout, 'r')).toEqual([
        'zeta-gen__audience_agnostic',
        'zeta-gen__audience_conditioned',
        'xsb-baseline__audience_conditioned',
      ]);
    } finally {
      await cleanup();
    }
  });

  it("is the run sheet's first compared system, not the alphabetically first (an imported deck)", () => {
    const systems = [
      'aaa-import__audience_agnostic',
      'zeta-gen__audience_agnostic',
      'zeta-gen__audience_conditioned',
    ];
    const sheetOrder = [
      'gone__audience_agnostic',
      'zeta-gen__audience_conditioned',
      'zeta-gen__audience_agnostic',
    ];
    expect(chooseReference({ systems, sheetOrder })).toEqual({
      reference: 'zeta-gen__audience_conditioned',
      from: 'run_sheet',
    });
    expect(referenceReason('run_sheet')).toBe("the run sheet's first system");
    // --systems keeps its order; --reference wins; no sheet row of a compared system: sorted order, said so.
    expect(chooseReference({ systems, sheetOrder, systemsFlag: ['zeta-gen__audience_agnostic'] })).toEqual({
      reference: 'zeta-gen__audience_agnostic',
      from: 'systems',
    });
    expect(chooseReference({ systems, sheetOrder, reference: systems[0] })).toEqual({
      reference: systems[0],
      from: 'flag',
    });
    expect(chooseReference({ systems, sheetOrder: [] })).toEqual({ reference: systems[0], from: 'sorted' });
    expect(referenceReason('sorted')).toMatch(/no run sheet row names a compared system/);
    const error = (() => {
      try {
        chooseReference({ systems, sheetOrder, reference: 'nope__audience_agnostic' });
      } catch (caught) {
        return caught;
      }
    })();
    expect(exitCodeFor(error)).toBe(2);
    expect(String(error)).toMatch(
      /reference system nope__audience_agnostic is not one of the compared systems/,
    );
  });
});

import { mkdir, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyProbeBankNote } from './empty-probe-bank-note';
import { emptyProbeBankWarnings, listEmptyProbeBanks } from './empty-probe-banks';
import { RunLayout } from './run-layout';
import { makeTempDir } from './testing';

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

async function layoutWith(banks: Record<string, { status: 'complete' | 'failed'; final: number } | 'junk'>) {
  const { dir, cleanup } = await makeTempDir('xsb-empty-banks-');
  cleanups.push(cleanup);
  const layout = new RunLayout(dir);
  for (const [label, bank] of Object.entries(banks)) {
    await mkdir(layout.probesDir(label), { recursive: true });
    const status =
      bank === 'junk'
        ? '{not json'
        : JSON.stringify({
            case_id: label,
            status: bank.status,
            judge: 'lexical',
            k: 3,
            counts: { generated: 0, filtered: 0, ungrounded: 0, duplicates: 0, final: bank.final },
            chunking: { source_chars: 1000, chunk_chars: 0, chunk_overlap: 0, chunk_count: 1 },
            errors: [],
          });
    await writeFile(layout.probeStatusFile(label), status);
  }
  return layout;
}

describe('listEmptyProbeBanks', () => {
  it('lists finished banks with 0 probes, not failed, unreadable or missing ones', async () => {
    const layout = await layoutWith({
      paper4: { status: 'complete', final: 0 },
      geotopo: { status: 'complete', final: 49 },
      broken: { status: 'failed', final: 0 },
      junk: 'junk',
      blank: { status: 'complete', final: 0 },
    });
    expect(await listEmptyProbeBanks(layout)).toEqual(['blank', 'paper4']);
    expect(await listEmptyProbeBanks(layout, ['paper4', 'geotopo', 'nowhere'])).toEqual(['paper4']);
    expect(await emptyProbeBankWarnings(layout, ['paper4'])).toEqual([
      'warning: case paper4: 0 probes, contributes no coverage',
    ]);
  });

  it('finds nothing in a data folder without probes', async () => {
    const layout = await layoutWith({});
    expect(await listEmptyProbeBanks(layout)).toEqual([]);
    expect(emptyProbeBankNote('x')).toBe('case x: 0 probes, contributes no coverage');
  });
});

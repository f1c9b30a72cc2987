import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runXsb, type XsbArgs } from '../testing-cli';
import { copyRepoFixtures } from '../testing-fixtures';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-missing-jobs-'));
  await copyRepoFixtures(['sources'], join(root, 'fixtures'));
});
afterEach(() => cleanup());

const run = (args: XsbArgs) => runXsb(args, { cwd: root, env: { PATH: process.env.PATH ?? '' } });

describe('xsb aggregate: a missing job keeps its cause', () => {
  it('a command generator that exited 3 with "boom" is listed with that reason, not as a folder without a deck', async () => {
    await writeFile(
      join(root, 'xsb.config.json'),
      JSON.stringify({
        generators: {
          broken: {
            command: [process.execPath, '-e', "process.stderr.write('boom\\n'); process.exit(3)", '{out}'],
            timeout_s: 30,
          },
        },
      }),
    );
    await writeFile(
      join(root, 'sheet.csv'),
      'system,condition,audience,case_label,source_document,prompt_path,output_deck_path\nbroken,audience_agnostic,all,raft,fixtures/sources/cs_raft_consensus/source.md,,\n',
    );
    const generated = await run('decks generate --run-sheet sheet.csv --run ext');
    expect(generated.code).toBe(1);

    // "3/3 jobs done" beside failures misled: a deck folder that yields no job counts as failed.
    const evaluated = await run('eval --run ext');
    expect(evaluated.code).toBe(1);
    expect(evaluated.stdout).toMatch(/^failed {4}.*deck generation failed: .*exited with code 3: boom$/m);
    expect(evaluated.stdout).toContain('0/1 job done, 1 failed, with judge lexical');

    const aggregated = await run('aggregate --run ext');

    expect(aggregated.code).toBe(1);
    const summary = JSON.parse(
      await readFile(join(root, 'data', 'runs', 'ext', 'summary', 'summary.json'), 'utf8'),
    );
    expect(summary.missing_jobs).toEqual([
      expect.objectContaining({
        system: 'broken',
        case_label: 'raft',
        reason: expect.stringMatching(
          /deck generation failed: .*generator "broken" exited with code 3: boom$/,
        ),
      }),
    ]);
    expect(aggregated.stderr).toMatch(/missing: .*exited with code 3: boom/);
    expect(aggregated.stderr).not.toMatch(/no \.pptx or \.pdf deck/);
    const report = await readFile(join(root, 'data', 'runs', 'ext', 'summary', 'report.md'), 'utf8');
    expect(report).toMatch(/exited with code 3: boom/);
  });
});

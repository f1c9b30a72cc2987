import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, type GeneratorConfig, RunLayout, readJson } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { offlineJudge } from '@xsb/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateDecksFromRunSheet } from './generate-decks-from-run-sheet';
import { readDeck } from './read-deck';
import { generatorArgv, resolveGeneratorEnv } from './run-command-generator';
import { readRunSheet } from './run-sheet';
import { deckRowStatusSchema } from './schemas/deck-run-status';

const FIXTURE_DECK = join(import.meta.dirname, '../../../fixtures/decks/cs_raft_consensus.baseline.pptx');

// One stand-in generator, told what to do by its first argument; it records its argv and cwd.
const GENERATOR = `
import { copyFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
const [mode, out, ...rest] = process.argv.slice(2);
writeFileSync('argv.json', JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd(), key: process.env.MY_KEY ?? null, work: process.env.XSB_WORK_DIR }));
console.log('generating', mode);
if (mode === 'copy') copyFileSync(process.env.FIXTURE_DECK, out);
if (mode === 'garbage') writeFileSync(out, 'this is not a deck at all');
if (mode === 'fail') { console.error('Traceback (most recent call last):'); console.error('RuntimeError: boom with key ' + process.env.MY_KEY); process.exit(3); }
if (mode === 'hang') {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  writeFileSync(process.env.PID_FILE, String(child.pid));
  setInterval(() => {}, 1000);
}
`;

const SECRET = 'sk-test-0123456789';

/** A literal `${NAME}` reference, as the config holds it (a quoted `${…}` reads to the linter as a forgotten template). */
const ref = (name: string) => `$${'{'}${name}}`;

/** Whether a process runs: a zombie (killed, not yet reaped by its new parent) does not. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
  return !/^\d+ \(.*\) Z/.test(stat);
}

let dir: string;
let cleanup: () => Promise<void>;
let layout: RunLayout;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-command-generator-'));
  layout = new RunLayout(join(dir, 'data'));
  await writeFile(join(dir, 'generator.mjs'), GENERATOR);
});
afterEach(() => cleanup());

// A source folder whose name a shell would read as several commands.
const HOSTILE_DIR = "my sources; touch PWNED & $(touch PWNED2) 'x'";

async function sheetWith(rows: string[]) {
  await mkdir(join(dir, HOSTILE_DIR), { recursive: true });
  await writeFile(join(dir, HOSTILE_DIR, 'paper one.md'), '# A paper\n\nSome text about a paper.\n');
  const file = join(dir, 'sheet.csv');
  await writeFile(
    file,
    [
      'system,condition,audience,case_label,source_document,prompt_path,output_deck_path',
      ...rows.map((row) => row.replace('SOURCE', `"${HOSTILE_DIR}/paper one.md"`)),
    ].join('\n'),
  );
  return readRunSheet(file);
}

function generator(mode: string, extra: Partial<GeneratorConfig> = {}): GeneratorConfig {
  return {
    command: [
      process.execPath,
      join(dir, 'generator.mjs'),
      mode,
      '{out}',
      '{source}',
      '{source_dir}',
      '--case={case}',
      '{audience}',
      '{condition}',
      '{prompt}',
      '{{literal}}',
    ],
    timeout_s: 20,
    env: {},
    format: 'pptx',
    ...extra,
  };
}

const environment = () => ({
  PATH: process.env.PATH ?? '',
  FIXTURE_DECK,
  PID_FILE: join(dir, 'grandchild.pid'),
  API_KEY: SECRET,
});

async function runRows(
  generators: Record<string, GeneratorConfig>,
  rows: string[],
  more: { force?: boolean; caseLabels?: string[] } = {},
) {
  return generateDecksFromRunSheet({
    sheet: await sheetWith(rows),
    layout,
    run: 'r',
    judge: offlineJudge,
    audienceProfiles: [],
    generators,
    environment: environment(),
    baseDir: dir,
    ...(more.force ? { force: true } : {}),
    ...(more.caseLabels ? { filters: { caseLabels: more.caseLabels } } : {}),
  });
}

const deckDirOf = (system: string, caseLabel: string) =>
  layout.deckDir({ run: 'r', system, condition: 'audience_agnostic', audience: 'all', caseLabel });

describe('command generators from a run sheet (real child processes)', () => {
  it('passes argv without a shell, runs in the row work folder, keeps logs, checks and places the deck, then skips it', async () => {
    const config = generator('copy', { env: { MY_KEY: 'Bearer ' + ref('API_KEY') } });
    const summary = await runRows({ mine: config }, ['mine,audience_agnostic,all,case_one,SOURCE,,']);
    expect(summary).toMatchObject({ done: 1, failed: 0 });
    const deckDir = deckDirOf('mine', 'case_one');
    const recorded = JSON.parse(await readFile(join(deckDir, 'work', 'argv.json'), 'utf8'));
    const source = join(dir, HOSTILE_DIR, 'paper one.md');
    expect(recorded.argv).toEqual([
      'copy',
      join(deckDir, 'work', 'out', 'case_one.pptx'),
      source,
      join(dir, HOSTILE_DIR),
      '--case=case_one',
      'all',
      'audience_agnostic',
      '',
      '{literal}',
    ]);
    expect(recorded.cwd).toBe(join(deckDir, 'work'));
    expect(recorded.key).toBe(`Bearer ${SECRET}`);
    expect(existsSync(join(dir, 'PWNED')) || existsSync(join(dir, 'PWNED2'))).toBe(false);
    expect(await readFile(join(deckDir, 'stdout.log'), 'utf8')).toBe('generating copy\n');
    expect(existsSync(join(deckDir, 'stderr.log'))).toBe(true);
    expect((await readDeck(join(deckDir, 'case_one.pptx'))).slide_count).toBe(8);
    const status = await readJson(join(deckDir, 'deck_status.json'), deckRowStatusSchema);
    expect(status).toMatchObject({ status: 'done', system: 'mine' });
    expect(JSON.stringify(summary)).not.toContain(SECRET);

    const again = await runRows({ mine: config }, ['mine,audience_agnostic,all,case_one,SOURCE,,']);
    expect(again).toMatchObject({ done: 0, skipped: 1 });
    const forced = await runRows({ mine: config }, ['mine,audience_agnostic,all,case_one,SOURCE,,'], {
      force: true,
    });
    expect(forced).toMatchObject({ done: 1, skipped: 0 });
  });

  it('fails a non-zero exit with its code and stderr tail (secrets hidden), and goes on with the other rows', async () => {
    const summary = await runRows(
      { failing: generator('fail', { env: { MY_KEY: ref('API_KEY') } }), mine: generator('copy') },
      ['failing,audience_agnostic,all,case_one,SOURCE,,', 'mine,audience_agnostic,all,case_two,SOURCE,,'],
    );
    expect(summary).toMatchObject({ done: 1, failed: 1 });
    const failed = summary.rows.find((row) => row.status === 'failed')!;
    expect(failed.message).toBe(
      `${join(dir, 'sheet.csv')}:2: generator "failing" exited with code 3: Traceback (most recent call last): / RuntimeError: boom with key ***`,
    );
    expect(existsSync(join(deckDirOf('failing', 'case_one'), 'case_one.pptx'))).toBe(false);
    expect(await readFile(join(deckDirOf('failing', 'case_one'), 'stderr.log'), 'utf8')).toContain(
      'RuntimeError',
    );
  });

  it('kills a hanging generator and its children after timeout_s and fails the row', async () => {
    const started = Date.now();
    const summary = await runRows({ slow: generator('hang', { timeout_s: 1 }) }, [
      'slow,audience_agnostic,all,case_one,SOURCE,,',
    ]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(summary.rows[0]).toMatchObject({ status: 'failed' });
    expect(summary.rows[0]?.message).toMatch(/generator "slow" timed out after 1 s$/);
    const grandchild = Number(await readFile(join(dir, 'grandchild.pid'), 'utf8'));
    // The grandchild was in the generator's process group: it is gone too (or a zombie nobody reaped yet).
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(isRunning(grandchild)).toBe(false);
  });

  it('fails a row whose deck is garbage, missing or of the other format, leaving nothing at the output path', async () => {
    const summary = await runRows(
      {
        garbage: generator('garbage'),
        nothing: generator('none'),
        wrongformat: generator('copy', { format: 'pdf' }),
      },
      [
        'garbage,audience_agnostic,all,case_one,SOURCE,,',
        'nothing,audience_agnostic,all,case_one,SOURCE,,',
        'wrongformat,audience_agnostic,all,case_one,SOURCE,,',
      ],
    );
    expect(summary).toMatchObject({ done: 0, failed: 3 });
    const [garbage, nothing, wrong] = summary.rows.map((row) => row.message);
    expect(garbage).toMatch(
      /generator "garbage" exited 0 but its deck cannot be used: .*not a PPTX or PDF|generator "garbage" exited 0 but its deck cannot be used: /,
    );
    expect(nothing).toMatch(/generator "nothing" exited 0 but wrote no deck to \{out\}/);
    expect(wrong).toMatch(/it is a PPTX, but the generator is configured with format pdf/);
    expect(existsSync(join(deckDirOf('garbage', 'case_one'), 'case_one.pptx'))).toBe(false);
    const named = await runRows({ mine: generator('copy') }, [
      'mine,audience_agnostic,all,case_one,SOURCE,,out/deck.pdf',
    ]);
    expect(named.rows[0]?.message).toMatch(
      /output deck path ends in \.pdf, but generator "mine" writes pptx/,
    );
    expect(existsSync(join(deckDirOf('wrongformat', 'case_one'), 'case_one.pdf'))).toBe(false);
  });

  it('follows the case filter, and names an unset variable reference as a config error before any row runs', async () => {
    const rows = [
      'mine,audience_agnostic,all,case_one,SOURCE,,',
      'mine,audience_agnostic,all,case_two,SOURCE,,',
    ];
    const filtered = await runRows({ mine: generator('copy') }, rows, { caseLabels: ['case_two'] });
    expect(filtered.rows.map((row) => row.case_label)).toEqual(['case_two']);
    await expect(
      runRows({ mine: generator('copy', { env: { TOKEN: ref('NOT_SET_ANYWHERE') } }) }, rows),
    ).rejects.toThrow(
      new ConfigError(
        'generators.mine.env.TOKEN refers to ' +
          ref('NOT_SET_ANYWHERE') +
          ', which is not set in the environment or .env',
      ),
    );
  });
});

describe('generatorArgv and resolveGeneratorEnv', () => {
  const values = {
    source: '/s/a b.pdf',
    source_dir: '/s',
    audience: 'learners',
    condition: 'audience_conditioned',
    prompt: '',
    out: '/o/d.pptx',
    case: 'c1',
  };

  it('substitutes inside each element and never splits one', () => {
    expect(
      generatorArgv('g', ['run', '--in={source}', '{out}', '{{x}}', '$(rm -rf {source_dir})'], values),
    ).toEqual(['run', '--in=/s/a b.pdf', '/o/d.pptx', '{x}', '$(rm -rf /s)']);
  });

  it('names an unknown placeholder', () => {
    expect(() => generatorArgv('g', ['run', '{output}'], values)).toThrow(
      'generators.g.command[1]: unknown placeholder {output}',
    );
  });

  it('fills variable references and returns the values to hide', () => {
    expect(resolveGeneratorEnv('g', { A: 'x-' + ref('K'), B: 'plain' }, { K: 'secret' })).toEqual({
      env: { A: 'x-secret', B: 'plain' },
      secrets: ['secret'],
    });
  });
});

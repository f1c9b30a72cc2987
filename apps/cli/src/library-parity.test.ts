/**
 * docs/index.md promises that "a library user gets everything the CLI and the API do from the
 * packages". Each test here runs one job twice on the shipped fixtures with the offline judge: once
 * through `xsb` (in-process) and once only through the packages' public barrels, and asserts the two
 * trees of artifacts are equal. What is dropped before comparing, and why:
 * - ISO timestamps (any string value that is one) and the local time in a PresentBench result's file
 *   name (FILE_STAMP): the two runs happen at different moments.
 * - The two working folders' absolute paths, replaced by `<root>`: each run has its own folder.
 * - `.xsb.lock` entries: a lock is a process record, not an artifact (none should remain anyway).
 * - The bench run's folder name (replaced by `<run>`): a bench run is named by its start time.
 */
import { cp, mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BenchLayout, discoverBenchCases, runBench, splitCases } from '@xsb/bench';
import { RunLayout } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { generateDecksFromRunSheet, readRunSheet } from '@xsb/decks';
import { aggregateRun, runEvaluation } from '@xsb/eval';
import { createJudge } from '@xsb/llm';
import { DEFAULT_TAU_A, mergeJudges, rescoreRun } from '@xsb/metrics';
import { createProbeGenerator, generateRunProbes } from '@xsb/probes';
import { runRubric } from '@xsb/rubric';
import { writeLectureDeck } from '@xsb/rubric/testing';
import { discoverSelectedCases, discoverSourceCases, prepareSourceContext } from '@xsb/sources';
import { createUtilityJudge, loadAudienceProfiles, weighRun } from '@xsb/weights';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runXsb } from './testing-cli';
import { copyRepoFixtures, repoFixture } from './testing-fixtures';

const JUDGE = 'lexical';
const RUN = 'r';
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
/** The local time a PresentBench result file is named by (`<judge>_2026-01-31_12-00-00.yaml`). */
const FILE_STAMP = /_\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}/g;

let root: string;
/** The data folder the library pipeline made: the bench compares its systems. */
let pipelineData: string | undefined;
let cleanup: () => Promise<void>;

/** `xsb args` from `cwd`, which must succeed. */
async function xsb(cwd: string, args: string[]): Promise<string> {
  const result = await runXsb(args, { cwd, env: { PATH: process.env.PATH ?? '' } });
  expect(result.code, `xsb ${args.join(' ')}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

/** `value` without its ISO timestamps. */
function normalized(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalized);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => !(typeof v === 'string' && ISO_TIME.test(v)))
        .map(([key, v]) => [key, normalized(v)]),
    );
  return value;
}

/** A text file with its folder's path replaced by `<root>`, JSON and JSON lines parsed and normalized. */
function comparable(name: string, text: string, dir: string): string {
  const relocated = text.replaceAll(dir, '<root>').replace(FILE_STAMP, '_<time>');
  if (name.endsWith('.json')) return JSON.stringify(normalized(JSON.parse(relocated)));
  if (name.endsWith('.jsonl'))
    return relocated
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.stringify(normalized(JSON.parse(line))))
      .join('\n');
  return relocated;
}

const TEXT_FILES = /\.(json|jsonl|csv|md|txt|yaml|html|log)$/;

/** Every file under `dir` (path relative to it → comparable content), binary files as base64. */
async function artifacts(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const relativePath = path.slice(dir.length + 1).replace(FILE_STAMP, '_<time>');
    if (relativePath.includes('.xsb.lock')) continue;
    files[relativePath] = TEXT_FILES.test(entry.name)
      ? comparable(entry.name, await readFile(path, 'utf8'), dir)
      : (await readFile(path)).toString('base64');
  }
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Where two artifact trees differ: each differing file with 80 characters around its first difference
 * (a whole-tree diff of ~100 files would bury the one that matters).
 */
function differences(lib: Record<string, string>, cli: Record<string, string>): string[] {
  const paths = [...new Set([...Object.keys(lib), ...Object.keys(cli)])].sort();
  return paths.flatMap((path) => {
    const [a, b] = [lib[path], cli[path]];
    if (a === b) return [];
    if (a === undefined || b === undefined) return [`${path}: only ${a === undefined ? 'CLI' : 'library'}`];
    let at = 0;
    while (a[at] === b[at]) at += 1;
    const around = (text: string) => text.slice(Math.max(0, at - 40), at + 40);
    return [`${path} @${at}: library ${JSON.stringify(around(a))} vs CLI ${JSON.stringify(around(b))}`];
  });
}

/** Two folders each holding `data/sources/` (the shipped cases) and `data/sheets/baseline.csv` (the baseline run sheet, whose paths start at ../sources). */
async function pipelineFolders(): Promise<{ cli: string; lib: string }> {
  const folders = { cli: join(root, 'pipeline-cli'), lib: join(root, 'pipeline-lib') };
  for (const dir of Object.values(folders)) {
    await copyRepoFixtures(['sources'], join(dir, 'data'));
    await cp(repoFixture('run-sheets', 'baseline.csv'), join(dir, 'data', 'sheets', 'baseline.csv'));
  }
  return folders;
}

beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-library-parity-'));
});
afterAll(() => cleanup());

describe('the pipeline (stages 1-7) through xsb and through the packages', () => {
  it('writes the same artifacts and reports the same metrics', async () => {
    const { cli, lib } = await pipelineFolders();

    await xsb(cli, ['sources']);
    await xsb(cli, ['probes', '--judge', JUDGE]);
    await xsb(cli, ['weights', '--judge', JUDGE]);
    await xsb(cli, [
      'decks',
      'generate',
      '--run-sheet',
      'data/sheets/baseline.csv',
      '--run',
      RUN,
      '--judge',
      JUDGE,
    ]);
    await xsb(cli, ['eval', '--run', RUN, '--judge', JUDGE]);
    const cliMetrics = JSON.parse(await xsb(cli, ['metrics', '--run', RUN, '--json']));
    const cliSummary = JSON.parse(await xsb(cli, ['aggregate', '--run', RUN, '--json']));

    const dataDir = join(lib, 'data');
    const layout = new RunLayout(dataDir);
    const discovered = await discoverSourceCases(dataDir);
    expect(discovered.failures).toEqual([]);
    for (const sourceCase of discovered.cases) await prepareSourceContext(layout, sourceCase, {});
    const probes = await generateRunProbes(layout, discovered, {
      generator: createProbeGenerator(createJudge(JUDGE)),
    });
    expect(probes.map((row) => row.status)).not.toContain('failed');
    const weights = await weighRun(layout, discovered, {
      judge: createUtilityJudge(createJudge(JUDGE)),
      profiles: await loadAudienceProfiles(),
    });
    expect(weights.map((row) => row.status)).not.toContain('failed');
    const decks = await generateDecksFromRunSheet({
      sheet: await readRunSheet(join(dataDir, 'sheets', 'baseline.csv')),
      layout,
      run: RUN,
      judge: createJudge(JUDGE),
      audienceProfiles: [...(await loadAudienceProfiles()).values()],
      // No maxSlides: the library's default is the CLI's 8, applied before the input hash.
    });
    expect(decks.failed).toBe(0);
    const evaluation = await runEvaluation({ dataDir, run: RUN, judge: JUDGE });
    expect(evaluation.results.map((job) => job.outcome)).not.toContain('failed');
    const libMetrics = await rescoreRun(layout, RUN, { tauA: DEFAULT_TAU_A });
    const { summary: libSummary } = await aggregateRun({ dataDir, run: RUN });

    expect(differences(await artifacts(dataDir), await artifacts(join(cli, 'data')))).toEqual([]);
    expect(normalized(JSON.parse(JSON.stringify(libMetrics.rows).replaceAll(lib, '<root>')))).toEqual(
      normalized(JSON.parse(JSON.stringify(cliMetrics.rows).replaceAll(cli, '<root>'))),
    );
    expect(libMetrics.failures).toEqual(cliMetrics.failures);
    expect(mergeJudges(libMetrics.rows.map((row) => row.judges))).toEqual(cliMetrics.judges);
    expect(normalized(JSON.parse(JSON.stringify(libSummary).replaceAll(lib, '<root>')))).toEqual(
      normalized(JSON.parse(JSON.stringify(cliSummary).replaceAll(cli, '<root>'))),
    );
    pipelineData = dataDir;
  }, 120_000);

  it('selects source cases by --case as the CLI does, unknown cases a usage error naming them', async () => {
    const dataDir = join(root, 'select');
    await cp(repoFixture('sources'), join(dataDir, 'sources'), { recursive: true });
    const { cases } = await discoverSelectedCases(dataDir, undefined);
    const one = cases[0]!.caseId;
    expect((await discoverSelectedCases(dataDir, [one])).cases.map((c) => c.caseId)).toEqual([one]);
    await expect(discoverSelectedCases(dataDir, ['no_such_case'])).rejects.toThrow(
      /unknown case "no_such_case"/,
    );
    const cli = await runXsb(['sources', '--data', dataDir, '--case', 'no_such_case'], { cwd: root });
    expect(cli.code).toBe(2);
    expect(cli.stderr).toMatch(/unknown case "no_such_case"/);
  });
});

describe('the rubric through xsb and through @xsb/rubric', () => {
  it('writes the same evaluation and summary for a results tree', async () => {
    const folders = { cli: join(root, 'rubric-cli'), lib: join(root, 'rubric-lib') };
    await mkdir(join(root, 'rubric-deck'));
    const deck = await writeLectureDeck(join(root, 'rubric-deck'), 12);
    for (const dir of Object.values(folders)) {
      await cp(repoFixture('rubric', 'appendix-cs-overview-ch1'), join(dir, 'instances', 'lecture'), {
        recursive: true,
      });
      await cp(deck, join(dir, 'results', 'lecture', 'generation_task', 'results', 'slides.pptx'));
    }
    const cliRun = JSON.parse(
      await xsb(folders.cli, [
        'rubric',
        'run',
        '--instances',
        'instances',
        '--results',
        'results',
        '--judge',
        JUDGE,
        '--json',
      ]),
    );
    const libRun = await runRubric({
      instancesDir: join(folders.lib, 'instances'),
      resultsDir: join(folders.lib, 'results'),
      judge: createJudge(JUDGE),
    });
    const relocated = (value: unknown, dir: string) =>
      JSON.parse(JSON.stringify(value).replaceAll(dir, '<root>').replace(FILE_STAMP, '_<time>'));
    const { summary_file: cliSummaryFile, ...cliSummary } = cliRun;
    expect(relocated(libRun.summaryFile, folders.lib)).toBe(relocated(cliSummaryFile, folders.cli));
    expect(normalized(relocated(libRun.summary, folders.lib))).toEqual(
      normalized(relocated(cliSummary, folders.cli)),
    );
    expect(
      differences(
        await artifacts(join(folders.lib, 'results')),
        await artifacts(join(folders.cli, 'results')),
      ),
    ).toEqual([]);
  }, 60_000);
});

describe('the bench through xsb and through @xsb/bench', () => {
  it('writes the same split and the same bench run on the pipeline data with fixtures/bench/bench.yaml', async () => {
    expect(pipelineData, 'the pipeline test ran first and made the data').toBeDefined();
    const folders = { cli: join(root, 'bench-cli', 'data'), lib: join(root, 'bench-lib', 'data') };
    for (const dir of Object.values(folders)) await cp(pipelineData!, dir, { recursive: true });
    const benchConfig = repoFixture('bench', 'bench.yaml');
    const settings = ['--configs', 'default,small_batches', '--resamples', '200'];

    await xsb(root, ['bench', 'split', '--data', folders.cli, '--test-share', '0']);
    await xsb(root, [
      'bench',
      'run',
      '--data',
      folders.cli,
      '--run',
      RUN,
      '--bench-config',
      benchConfig,
      ...settings,
    ]);

    const { cases } = await discoverBenchCases(folders.lib);
    await splitCases(new BenchLayout(folders.lib), cases, { testShare: 0 });
    await runBench({
      dataDir: folders.lib,
      pipelineRun: RUN,
      judge: JUDGE,
      configs: 'default,small_batches',
      resamples: 200,
      benchConfigFile: benchConfig,
      // What `xsb bench run` records as the run's commit: the data folder's, else its working folder's.
      gitDirs: [folders.lib, root],
    });

    const tree = async (dataDir: string) => {
      const runs = join(dataDir, 'bench', 'runs');
      const [only, ...others] = await readdir(runs);
      expect(others).toEqual([]);
      const files = await artifacts(join(runs, only!));
      const splits = await artifacts(join(dataDir, 'bench'));
      for (const path of Object.keys(splits))
        if (!path.startsWith('runs/')) files[`bench/${path}`] = splits[path]!;
      return JSON.parse(JSON.stringify(files).replaceAll(dataDir, '<data>').replaceAll(only!, '<run>'));
    };
    expect(differences(await tree(folders.lib), await tree(folders.cli))).toEqual([]);
  }, 120_000);
});

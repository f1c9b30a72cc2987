import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { readPythonYaml } from '@xsb/rubric';
import { writeLayoutFixtureDecks } from '@xsb/rubric/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runXsb, type XsbArgs } from '../testing-cli';
import { repoFixture } from '../testing-fixtures';

const ch1Bits = join(
  repoFixture('rubric', 'presentbench-layout'),
  'data/education/Computer_science_lectures/ch1_bits',
);
let root: string;
let cleanup: () => Promise<void>;
let server: FakeLlmServer;
let env: Record<string, string>;

beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-rubric-export-'));
  // every item answers, except "Font Size and Legibility", which never boxes its verdict
  server = await startFakeLlmServer({
    handler: (request) =>
      request.text.includes('**Font Size and Legibility**')
        ? { text: 'Readable enough.' }
        : { text: '\\boxed{Yes}' },
  });
  env = fakeProviderEnv(server) as Record<string, string>;
});
afterEach(async () => {
  await server.close();
  await cleanup();
});

const run = (args: XsbArgs) => runXsb(args, { cwd: root, env });

// biome-ignore lint/suspicious/noExplicitAny: nested YAML read back for assertions only
type Yaml = any;

/** A YAML file as PyYAML reads it, mappings as plain objects (ints as numbers). */
async function readYaml(file: string): Promise<Yaml> {
  const plain = (value: unknown): unknown => {
    if (value instanceof Map)
      return Object.fromEntries([...value].map(([key, inner]) => [String(key), plain(inner)]));
    return typeof value === 'bigint' ? Number(value) : value;
  };
  return plain(await readPythonYaml(file));
}

async function evaluate(): Promise<string> {
  const { clean } = await writeLayoutFixtureDecks(root);
  const result = await run([
    'rubric',
    'eval',
    '--instance',
    ch1Bits,
    '--deck',
    clean,
    '--judge',
    'openai:gpt-x',
    '--json',
  ]);
  expect(result.code).toBe(1); // one item stayed unanswered
  return JSON.parse(result.stdout).evaluation_file;
}

describe('xsb rubric export', () => {
  it('writes <model>_<time>.yaml with the unanswered item as judge.py stores it, and no score file', async () => {
    const evaluation = await evaluate();
    const result = await run([
      'rubric',
      'export',
      '--evaluation',
      evaluation,
      '--out-dir',
      'pb',
      '--timestamp',
      '2026-01-27_12-34-56',
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      errors: 'as-null',
      result: join(root, 'pb/gpt-x_2026-01-27_12-34-56.yaml'),
      score: null,
    });
    const written = await readYaml(join(root, 'pb/gpt-x_2026-01-27_12-34-56.yaml'));
    expect(written.material_independent['2']['2.3']).toEqual({
      answer: null,
      explanation: 'Readable enough.',
      log: 'Failed to extract answer after 5 attempts for item 2.3',
    });
    expect(written.material_independent['1']['1.2'].answer).toBe('Yes');
  });

  it('--errors as-no writes a file scoring.py can score, with its _score.yaml beside it', async () => {
    const evaluation = await evaluate();
    const result = await run([
      'rubric',
      'export',
      '--evaluation',
      evaluation,
      '--errors',
      'as-no',
      '--model',
      'models/gemini-3-flash',
      '--out-dir',
      'pb',
      '--timestamp',
      '2026-01-27_12-34-56',
    ]);
    expect(result.code).toBe(0);
    expect((await readdir(join(root, 'pb'))).sort()).toEqual([
      'gemini-3-flash_2026-01-27_12-34-56.yaml',
      'gemini-3-flash_2026-01-27_12-34-56_score.yaml',
    ]);
    const score = await readYaml(join(root, 'pb/gemini-3-flash_2026-01-27_12-34-56_score.yaml'));
    // design: 2 of 3 yes (the unanswered item exported as "no") at weight 30; everything else yes
    expect(score.total.material_independent.classes.class_2).toMatchObject({ yes_count: 2, valid_count: 3 });
    expect(score.total.weighted_arithmetic_mean_percent).toBeCloseTo(100 - 30 / 3, 10);
  });

  it('checks its flags before writing anything', async () => {
    const evaluation = await evaluate();
    const bad = [
      [['--errors', 'as-yes'], /--errors must be one of as-null, as-no/],
      [['--timestamp', '2026-13-01_00-00-00'], /--timestamp must look like/],
      [['--out', 'x.yaml', '--out-dir', 'pb'], /--out or --out-dir, not both/],
    ] as const;
    for (const [flags, message] of bad) {
      const result = await run(['rubric', 'export', '--evaluation', evaluation, ...flags]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    expect(await readdir(root)).not.toContain('pb');
  });

  it('never scores with equal weights in silence: an old evaluation without weights needs a flag', async () => {
    const evaluation = await evaluate();
    const stored = JSON.parse(await readFile(evaluation, 'utf8'));
    delete stored.weights;
    await writeFile(evaluation, JSON.stringify(stored));
    const result = await run(['rubric', 'score', '--evaluation', evaluation]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/does not record its class weights.*--weights/);
    expect(
      (await run(['rubric', 'score', '--evaluation', evaluation, '--instance', ch1Bits])).stdout,
    ).toMatch(/paper total/);
  });
});

describe('xsb rubric eval/run flags', () => {
  it('validate --parse and --slide-count-on, naming the values', async () => {
    const { clean } = await writeLayoutFixtureDecks(root);
    const parse = await run(['rubric', 'eval', '--instance', ch1Bits, '--deck', clean, '--parse', 'loose']);
    expect(parse.code).toBe(2);
    expect(parse.stderr).toMatch(/--parse must be one of strict, lenient, got "loose"/);
    const basis = await run([
      'rubric',
      'eval',
      '--instance',
      ch1Bits,
      '--deck',
      clean,
      '--slide-count-on',
      'truncated',
    ]);
    expect(basis.stderr).toMatch(/--slide-count-on must be one of judged, delivered/);
    const help = await run(['rubric', 'eval', '--help']);
    expect(help.stdout).toMatch(/--slide-count-on <deck>\s+judged \(default/);
  });
});

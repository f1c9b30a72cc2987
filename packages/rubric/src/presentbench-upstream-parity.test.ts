/**
 * Parity with PresentBench main (e70ff01), checked against its real code: judge.py's verdict
 * extraction and resume loop, utils/judge_utils.py and utils/score_utils.py, scoring.py and
 * scoring_all.py, run by `fixtures/rubric/presentbench-parity/upstream_harness.py` on a checkout
 * made with `git archive` from a clone (`PRESENTBENCH_REPO`, default the mirror of this machine).
 * Without python3 + PyYAML or the clone the Python half skips with its reason; the TypeScript
 * re-typing of the resume rules below runs either way.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { createLlmClient, judgeFromClient } from '@xsb/llm';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { buildChecklistRequest, buildSharedPrefix, judgeChecklistItem } from './checklist-item-judge';
import { dumpScoreTreeYaml, writePresentBenchFiles } from './presentbench-files';
import {
  readPresentBenchResult,
  stringifyPresentBenchResult,
  toPresentBenchResult,
} from './presentbench-result';
import { scorePresentBenchResult } from './presentbench-scoring';
import { readPythonYaml } from './python-values';
import { runRubric } from './run-rubric';
import type { RubricEvaluation } from './schemas/rubric-evaluation';
import type { RubricClassWeights } from './schemas/rubric-instance';
import { scoreEvaluation, scorePresentBenchVerdicts } from './score-report';
import { writeLayoutFixtureDecks } from './write-layout-fixture-decks';

const REPO_ROOT = resolve(__dirname, '../../..');
const HARNESS = join(REPO_ROOT, 'fixtures/rubric/presentbench-parity/upstream_harness.py');
const DATA = join(REPO_ROOT, 'fixtures/rubric/presentbench-layout/data');
const WEIGHTS_FILE = join(DATA, 'education/judge_weights.yaml');
const UPSTREAM_REPO = process.env.PRESENTBENCH_REPO ?? '/work/.mirror/PresentBench+PresentBench/repo';
const UPSTREAM_COMMIT = 'e70ff01da962274e1e3cc03f77ec435ad66c5eb6';
const WEIGHTS = {
  material_independent: { '1': 10, '2': 30 },
  material_dependent: { '1': 20, '2': 25, '3': 15 },
};

let temp: { dir: string; cleanup: () => Promise<void> };
let upstream: string | undefined;
let skipReason = '';

function prepareUpstream(dir: string): string | undefined {
  const python = spawnSync('python3', ['-c', 'import yaml'], { encoding: 'utf8' });
  if (python.error || python.status !== 0) {
    skipReason = `python3 with PyYAML is needed (${python.error?.message ?? python.stderr.trim()})`;
    return undefined;
  }
  if (!existsSync(UPSTREAM_REPO)) {
    skipReason = `no PresentBench clone at ${UPSTREAM_REPO} (set PRESENTBENCH_REPO)`;
    return undefined;
  }
  const tar = join(dir, 'upstream.tar');
  const archive = spawnSync('git', ['-C', UPSTREAM_REPO, 'archive', '--output', tar, UPSTREAM_COMMIT], {
    encoding: 'utf8',
  });
  if (archive.status !== 0) {
    skipReason = `git archive ${UPSTREAM_COMMIT} failed in ${UPSTREAM_REPO}: ${archive.stderr.trim()}`;
    return undefined;
  }
  const out = join(dir, 'upstream');
  spawnSync('mkdir', ['-p', out]);
  const untar = spawnSync('tar', ['-xf', tar, '-C', out], { encoding: 'utf8' });
  if (untar.status !== 0) {
    skipReason = `tar failed: ${untar.stderr.trim()}`;
    return undefined;
  }
  return out;
}

function harness<T>(request: Record<string, unknown>): T {
  const run = spawnSync('python3', [HARNESS, upstream as string], {
    input: JSON.stringify(request),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`upstream harness failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

beforeAll(async () => {
  temp = await makeTempDir('xsb-pb-parity-');
  upstream = prepareUpstream(temp.dir);
  if (!upstream) console.log(`[presentbench parity] Python half skipped: ${skipReason}`);
});
afterAll(async () => temp.cleanup());

// ---------------------------------------------------------------------------------------------
// Verdict extraction: the same scripted answers through judge.py's process_single_item and through
// our strict reader (real OpenAI SDK client, fake server).
// ---------------------------------------------------------------------------------------------

const ANSWER_SCRIPTS: string[][] = [
  ['The deck is fine.\n\\boxed{yes}'],
  ['\\boxed{No}'],
  ['Final answer: \\boxed{\\text{Yes}}'],
  ['\\boxed{\\textbf{NO}}.'],
  ['**Answer:** $\\boxed{\\text{no}}$'],
  ['\\boxed{ yes. }'],
  ['I must answer with \\boxed{...}. Slide 4 breaks the flow, so \\boxed{no}'],
  ['Format: \\boxed{answer}. Verdict: \\boxed{maybe}'],
  ['At first glance \\boxed{yes}, but Slide 9 repeats Slide 8: \\boxed{no}'],
  ['\\boxed{maybe}'],
  ['\\boxed{**Yes**}'],
  ['\\boxed{Yes!}'],
  ['\\boxed{"no"}'],
  ['\\boxed{not applicable}'],
  ['\\boxed{\\text{not\\ applicable}}'],
  ['\\boxed{\\large no}'],
  ['\\boxed{\\text{}}'],
  ['\\boxed{a{b}c} and \\boxed{yes}'],
  ['\u001f \\boxed{\u0085yes\u3000} \u2028'],
  ['\\boxed{yes\ufeff}'],
  ['\\boxed{}', '\\boxed{yes}'],
  ['No verdict here.', 'Still none.', '\\boxed{yes}'],
  ['', '\\boxed{no}'],
  ['Looks fine.', 'Looks fine.', 'Looks fine.', 'Looks fine.', 'Looks fine.'],
  ['', '', '', '', ''],
  ['', 'no box', '', 'no box', 'no box'],
];

describe('verdict extraction against judge.py process_single_item', () => {
  let server: FakeLlmServer;
  const calls = new Map<number, number>();
  beforeAll(async () => {
    server = await startFakeLlmServer({
      handler: (request) => {
        const id = Number(/CASE-(\d+)/.exec(request.text)?.[1]);
        const call = calls.get(id) ?? 0;
        calls.set(id, call + 1);
        const script = ANSWER_SCRIPTS[id] as string[];
        return { text: script[Math.min(call, script.length - 1)] as string };
      },
    });
  });
  afterAll(async () => server.close());

  it('stores the same answer, explanation and log after the same number of calls', async (context) => {
    context.skip(!upstream, skipReason);
    const cases = ANSWER_SCRIPTS.map((answers, index) => ({
      prompt: `CASE-${index}`,
      i: index % 3,
      j: index,
      answers,
    }));
    const theirs = harness<Array<{ result: Record<string, unknown>; calls: number }>>({
      op: 'verdicts',
      slides_path: 'slides.pdf',
      cases,
    });
    const client = createLlmClient('openai:gpt-parity', { env: fakeProviderEnv(server), noCache: true });
    const shared = buildSharedPrefix('DECK', [], 'PREFIX');
    for (const [index, entry] of cases.entries()) {
      const ours = await judgeChecklistItem(client, buildChecklistRequest(shared, entry.prompt), {
        parser: 'strict',
        maxAttempts: 5,
        key: `${entry.i + 1}.${entry.j + 1}`,
        deckPath: 'slides.pdf',
      });
      const upstreamItem = theirs[index] as { result: Record<string, unknown>; calls: number };
      expect(
        {
          answer: ours.answer,
          explanation: ours.explanation,
          ...(ours.log ? { log: ours.log } : {}),
          calls: ours.attempts,
        },
        `answers ${JSON.stringify(entry.answers)}`,
      ).toEqual({ ...upstreamItem.result, calls: upstreamItem.calls });
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Scoring: our exported files through scoring.py, byte for byte, and our numbers to 1e-9.
// ---------------------------------------------------------------------------------------------

type Item = RubricEvaluation['items'][number];
const DIMENSIONS = {
  material_independent: ['fundamentals', 'design'],
  material_dependent: ['completeness', 'correctness', 'fidelity'],
} as const;

function item(section: Item['section'], key: string, answer: string | null, verdict?: Item['verdict']): Item {
  const classId = key.split('.')[0] as string;
  const read = answer === null ? 'error' : answer.trim().toLowerCase();
  return {
    key,
    section,
    class_id: classId,
    dimension: DIMENSIONS[section][Number(classId) - 1] as Item['dimension'],
    kind: 'llm',
    verdict: verdict ?? (read === 'yes' || read === 'no' || read === 'error' ? read : 'other'),
    raw_answer: answer,
    answer,
    explanation: answer === null ? 'The fonts seem fine.' : `Reasoning. \\boxed{${answer}}`,
    cited_slides: [],
    attempts: answer === null ? 5 : 1,
    ...(answer === null ? { log: `Failed to extract answer after 5 attempts for item ${key}` } : {}),
  };
}

function evaluationOf(items: Item[], weights: RubricClassWeights = WEIGHTS): RubricEvaluation {
  return {
    instance_id: 'education/Computer_science_lectures/ch1_bits',
    category: 'education',
    deck_path: 'slides.pptx',
    judge: 'openai:gpt-parity',
    parser: 'strict',
    slide_count_on: 'judged',
    weights,
    input_hash: 'h',
    slide_count: 4,
    judged_slide_count: 4,
    truncated: false,
    items,
    layout_checks: [],
    usage: { calls: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
  };
}

const MESSY: Item[] = [
  {
    ...item('material_independent', '1.1', 'yes'),
    kind: 'check',
    explanation: '[judged by code] The number of slides is 4, which is within the required range of 3-5.',
  },
  item('material_independent', '1.2', 'No'),
  item('material_independent', '1.3', 'Yes'),
  item('material_independent', '2.1', 'maybe'),
  item('material_independent', '2.2', '**Yes**'),
  item('material_independent', '2.3', 'YES'),
  item('material_dependent', '1.1', 'not applicable'),
  item('material_dependent', '1.2', ''),
  item('material_dependent', '2.1', 'no'),
  item('material_dependent', '2.2', 'Yes!'),
  item('material_dependent', '3.1', 'yes'),
  item('material_dependent', '3.2', 'yes'),
  item('material_dependent', '3.3', 'no'),
  item('material_dependent', '3.4', '\\Yes'),
];

/** Runs scoring.py on `result` with `weights`; returns its score YAML text or its exception. */
function upstreamScore(result: string, weights: string, name: string): { output?: string; error?: string } {
  return harness({ op: 'score', result, weights, output: join(temp.dir, `${name}_upstream_score.yaml`) });
}

function expectSameNumbers(theirs: string, ours: ReturnType<typeof scoreEvaluation>): void {
  const tree = parseYaml(theirs);
  const close = (a: number | null | undefined, b: number) =>
    expect(Math.abs((a ?? Number.NaN) - b)).toBeLessThanOrEqual(1e-9);
  close(ours.presentbench.total_percent, tree.total.weighted_arithmetic_mean_percent);
  close(
    ours.presentbench.material_independent_percent,
    tree.total.material_independent.weighted_arithmetic_mean_percent,
  );
  close(
    ours.presentbench.material_dependent_percent,
    tree.total.material_dependent.weighted_arithmetic_mean_percent,
  );
  for (const section of ['material_independent', 'material_dependent'] as const) {
    for (const [name, info] of Object.entries(
      tree.total[section].classes as Record<string, { score_percent: number }>,
    )) {
      const classId = name.replace('class_', '');
      // every class, one without items too (scoring.py writes 0.0 for it, and so does our summary)
      close(ours.presentbench.classes[section][classId]?.score_percent, info.score_percent);
    }
  }
  for (const [removed, value] of Object.entries(
    tree.total.leave_one_out_analysis as Record<string, { weighted_arithmetic_mean_percent: number }>,
  )) {
    close(ours.presentbench.leave_one_out_percent[removed], value.weighted_arithmetic_mean_percent);
  }
}

describe('scoring.py on the files we write', () => {
  it('scores our answered export byte for byte as our _score.yaml, and our numbers agree to 1e-9', async (context) => {
    context.skip(!upstream, skipReason);
    const dir = join(temp.dir, 'answered');
    const evaluation = evaluationOf(MESSY);
    const written = await writePresentBenchFiles(
      evaluation,
      { kind: 'results-dir', dir, model: 'gpt-parity' },
      { weights: WEIGHTS },
    );
    const theirs = upstreamScore(written.result, WEIGHTS_FILE, 'answered');
    expect(theirs.error).toBeUndefined();
    expect(await readFile(written.score as string, 'utf8')).toBe(theirs.output);
    expectSameNumbers(theirs.output as string, scoreEvaluation(evaluation, { weights: WEIGHTS }));
  });

  it('agrees with weights.total, a section "total" entry and a class without weight', async (context) => {
    context.skip(!upstream, skipReason);
    const weights = {
      material_independent: { '1': 10, '2': 30, total: 40 },
      material_dependent: { '1': 20, '2': 25 },
      total: 110,
    };
    const weightsFile = join(temp.dir, 'odd_weights.yaml');
    await writeFile(weightsFile, stringifyPresentBenchResult(weights));
    const file = join(temp.dir, 'odd.yaml');
    const evaluation = evaluationOf(MESSY, weights);
    const written = await writePresentBenchFiles(evaluation, { kind: 'file', file }, { weights });
    const theirs = upstreamScore(written.result, weightsFile, 'odd');
    expect(await readFile(written.score as string, 'utf8')).toBe(theirs.output);
    expectSameNumbers(theirs.output as string, scoreEvaluation(evaluation, { weights }));
  });

  it('--errors as-no writes a file scoring.py scores; as-null is one it cannot, and we say so', async (context) => {
    context.skip(!upstream, skipReason);
    const evaluation = evaluationOf([
      ...MESSY.slice(0, 5),
      item('material_independent', '2.3', null),
      ...MESSY.slice(6),
    ]);
    const asNo = await writePresentBenchFiles(
      evaluation,
      { kind: 'file', file: join(temp.dir, 'as-no.yaml') },
      { weights: WEIGHTS, errors: 'as-no' },
    );
    const scored = upstreamScore(asNo.result, WEIGHTS_FILE, 'as-no');
    expect(await readFile(asNo.score as string, 'utf8')).toBe(scored.output);
    expectSameNumbers(
      scored.output as string,
      scoreEvaluation(evaluation, { weights: WEIGHTS, errorPolicy: 'as-no' }),
    );

    const asNull = await writePresentBenchFiles(
      evaluation,
      { kind: 'file', file: join(temp.dir, 'as-null.yaml') },
      { weights: WEIGHTS },
    );
    expect(asNull.score).toBeNull();
    expect(upstreamScore(asNull.result, WEIGHTS_FILE, 'as-null').error).toBe(
      "AttributeError: 'NoneType' object has no attribute 'strip'",
    );
    const ours = scoreEvaluation(evaluation, { weights: WEIGHTS });
    expect(ours.presentbench_score_tree).toBeNull();
    expect(ours.presentbench.unscoreable_reason).toMatch(
      /2\.3: answer is null.*'NoneType' object has no attribute 'strip'/,
    );
  });

  it('reads hand-written PresentBench files as PyYAML does (typed keys, booleans, odd items)', async (context) => {
    context.skip(!upstream, skipReason);
    const result = join(temp.dir, 'messy-result.yaml');
    await writeFile(
      result,
      [
        'material_independent:',
        '  1:',
        "    '1.1': {answer: 'yes '}",
        "    '1.2': {answer: ' YES'}",
        "    '1.3': {explanation: no answer key}",
        "    '1.4': just a string",
        '  2:',
        "    '2.1': {answer: 'no'}",
        "    '2.2': {answer: 'Yes.'}",
        'material_dependent:',
        "  '1':",
        "    '1.1': {answer: 'yes'}",
        '',
      ].join('\n'),
    );
    const weights = join(temp.dir, 'messy-weights.yaml');
    await writeFile(
      weights,
      "material_independent:\n  1: 10\n  2: 30\nmaterial_dependent:\n  '1': 20\n  1: 99\n",
    );
    const theirs = upstreamScore(result, weights, 'messy');
    const tree = scorePresentBenchResult(await readPresentBenchResult(result), await readPythonYaml(weights));
    expect(dumpScoreTreeYaml(tree)).toBe(theirs.output);
    const report = scorePresentBenchVerdicts(await readPresentBenchResult(result), {
      weights: await readPythonYaml(weights),
    });
    expect(report.presentbench.total_percent).toBeCloseTo(
      parseYaml(theirs.output as string).total.weighted_arithmetic_mean_percent,
      9,
    );

    const booleans = join(temp.dir, 'boolean-result.yaml');
    await writeFile(
      booleans,
      "material_independent:\n  '1':\n    '1.1': {answer: yes}\nmaterial_dependent: {}\n",
    );
    expect(upstreamScore(booleans, weights, 'boolean').error).toBe(
      "AttributeError: 'bool' object has no attribute 'strip'",
    );
    const typedBooleans = await readPythonYaml(booleans);
    const typedWeights = await readPythonYaml(weights);
    expect(() => scorePresentBenchResult(typedBooleans, typedWeights)).toThrow(
      /answer is the bool True.*'bool' object has no attribute 'strip'/,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Resume: judge.py's find_resume_yaml / is_result_complete / run_judge on our files.
// ---------------------------------------------------------------------------------------------

/** TypeScript re-typing of `find_resume_yaml`: `<prefix>*.yaml`, not `_score.yaml`, newest timestamp. */
function findResumeYaml(names: string[], prefix: string): string | undefined {
  const stamp = /(\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2})/;
  const candidates = names.filter(
    (name) =>
      name.startsWith(prefix) && name.endsWith('.yaml') && !name.endsWith('_score.yaml') && stamp.test(name),
  );
  return candidates.sort((a, b) => (stamp.exec(b)?.[1] ?? '').localeCompare(stamp.exec(a)?.[1] ?? ''))[0];
}

/** TypeScript re-typing of `run_judge`'s resume rule: an item counts as done when its answer is not None. */
function itemsToJudge(
  section: Record<string, Record<string, { answer: unknown }>> | undefined,
  keys: string[],
): string[] {
  const done = new Set<string>();
  for (const inner of Object.values(section ?? {})) {
    for (const [key, value] of Object.entries(inner ?? {}))
      if (value && value.answer !== null && value.answer !== undefined) done.add(key);
  }
  return keys.filter((key) => !done.has(key));
}

describe('scoring.py on a class with no items', () => {
  it('writes 0.0 for it; our score tree, summary and --json block carry the same 0.0', async (context) => {
    context.skip(!upstream, skipReason);
    const result = join(temp.dir, 'empty-class-result.yaml');
    // class 2 is empty, class 3's only entry is not an item mapping: scoring.py counts neither
    await writeFile(
      result,
      [
        'material_independent:',
        "  '1':",
        "    '1.1': {answer: 'yes'}",
        "  '2': {}",
        'material_dependent:',
        "  '1':",
        "    '1.1': {answer: 'no'}",
        "    '1.2': {answer: 'yes'}",
        "  '3':",
        "    '3.1': just a string",
        '',
      ].join('\n'),
    );
    const theirs = upstreamScore(result, WEIGHTS_FILE, 'empty-class');
    expect(theirs.error).toBeUndefined();
    const tree = parseYaml(theirs.output as string);
    expect(tree.total.material_independent.classes.class_2).toMatchObject({
      score_percent: 0,
      valid_count: 0,
    });
    expect(tree.total.material_dependent.classes.class_3).toMatchObject({ score_percent: 0, valid_count: 0 });
    const parsed = await readPresentBenchResult(result);
    const weights = await readPythonYaml(WEIGHTS_FILE);
    expect(dumpScoreTreeYaml(scorePresentBenchResult(parsed, weights))).toBe(theirs.output);
    const ours = scorePresentBenchVerdicts(parsed, { weights });
    expect(
      dumpScoreTreeYaml(ours.presentbench_score_tree as NonNullable<typeof ours.presentbench_score_tree>),
    ).toBe(theirs.output);
    expect(ours.presentbench.classes.material_independent['2']).toMatchObject({
      score_percent: 0,
      valid_count: 0,
    });
    expect(ours.presentbench.classes.material_dependent['3']).toMatchObject({
      score_percent: 0,
      valid_count: 0,
    });
    expectSameNumbers(theirs.output as string, ours);
  });
});

describe("judge.py's resume on our result files", () => {
  const evaluation = evaluationOf([
    ...MESSY.slice(0, 5),
    item('material_independent', '2.3', null),
    ...MESSY.slice(6, 10),
    { ...item('material_dependent', '3.1', null, 'not_judged'), explanation: null, attempts: 0 },
    ...MESSY.slice(11),
  ]);
  const checklists = {
    material_independent: [
      ['P-mi-1.1', 'P-mi-1.2', 'P-mi-1.3'],
      ['P-mi-2.1', 'P-mi-2.2', 'P-mi-2.3'],
    ],
    material_dependent: [
      ['P-md-1.1', 'P-md-1.2'],
      ['P-md-2.1', 'P-md-2.2'],
      ['P-md-3.1', 'P-md-3.2', 'P-md-3.3', 'P-md-3.4'],
    ],
  };

  it('(TypeScript re-typing) finds our newest file and judges only the unanswered and unjudged items', async () => {
    const dir = join(temp.dir, 'resume-ts');
    const first = await writePresentBenchFiles(
      evaluation,
      { kind: 'results-dir', dir, model: 'gpt-parity' },
      { weights: WEIGHTS, now: new Date(2026, 0, 2, 3, 4, 5) },
    );
    expect(first.score).toBeNull();
    await writeFile(join(dir, 'other-model_2027-01-01_00-00-00.yaml'), 'material_independent: {}\n');
    const names = await readdir(dir);
    expect(findResumeYaml(names, 'gpt-parity_')).toBe('gpt-parity_2026-01-02_03-04-05.yaml');
    const loaded = parseYaml(await readFile(first.result, 'utf8'), { version: '1.1' });
    expect(itemsToJudge(loaded.material_independent, ['1.1', '1.2', '1.3', '2.1', '2.2', '2.3'])).toEqual([
      '2.3',
    ]);
    expect(
      itemsToJudge(loaded.material_dependent, ['1.1', '1.2', '2.1', '2.2', '3.1', '3.2', '3.3', '3.4']),
    ).toEqual(['3.1']);
  });

  it('(PresentBench code) picks our file up, judges only those items, and skips judging once we wrote a score', async (context) => {
    context.skip(!upstream, skipReason);
    const dir = join(temp.dir, 'resume-py');
    const first = await writePresentBenchFiles(
      evaluation,
      { kind: 'results-dir', dir, model: 'gpt-parity' },
      { weights: WEIGHTS, now: new Date(2026, 0, 2, 3, 4, 5) },
    );
    const partial = harness<{
      resume_yaml: string | null;
      score_yaml: string | null;
      sections: Record<
        string,
        { complete: boolean; judged: string[]; result: Record<string, Record<string, { answer: unknown }>> }
      >;
    }>({ op: 'resume', dir, model_prefix: 'gpt-parity', checklists });
    expect(partial.resume_yaml).toBe(first.result);
    expect(partial.score_yaml).toBeNull();
    expect(partial.sections.material_independent).toMatchObject({ complete: false, judged: ['P-mi-2.3'] });
    expect(partial.sections.material_dependent).toMatchObject({ complete: false, judged: ['P-md-3.1'] });
    // the answered items come back as we stored them
    const exported = toPresentBenchResult(evaluation);
    expect(partial.sections.material_independent?.result['1']).toEqual(exported.material_independent['1']);

    const complete = evaluationOf(MESSY);
    const second = await writePresentBenchFiles(
      complete,
      { kind: 'results-dir', dir, model: 'gpt-parity' },
      { weights: WEIGHTS, now: new Date(2026, 0, 3, 3, 4, 5) },
    );
    const done = harness<typeof partial>({ op: 'resume', dir, model_prefix: 'gpt-parity', checklists });
    expect(done.resume_yaml).toBe(second.result);
    expect(done.score_yaml).toBe(second.score);
    expect(done.sections.material_independent).toMatchObject({ complete: true, judged: [] });
    expect(done.sections.material_dependent).toMatchObject({ complete: true, judged: [] });
  });
});

// ---------------------------------------------------------------------------------------------
// scoring_all.py over a results tree `runRubric` wrote (real OpenAI SDK client, fake server).
// ---------------------------------------------------------------------------------------------

describe('scoring_all.py over a results tree written by runRubric', () => {
  it('finds our result file, finds it complete, and rewrites our score file byte for byte', async (context) => {
    context.skip(!upstream, skipReason);
    const root = join(temp.dir, 'batch');
    const dataRoot = join(root, 'data');
    await cp(DATA, dataRoot, { recursive: true });
    const resultDir = join(
      root,
      'results/education/Computer_science_lectures/ch1_bits/generation_task/results',
    );
    await mkdir(resultDir, { recursive: true });
    const decks = await writeLayoutFixtureDecks(root);
    await cp(decks.clean, join(resultDir, 'slides.pptx'));
    const server = await startFakeLlmServer({
      handler: (request) => ({
        text: request.text.includes('Slide 3') ? 'Slide 3 errs. \\boxed{No}' : 'Fine. \\boxed{\\text{Yes}}',
      }),
    });
    try {
      const client = createLlmClient('openai:gpt-batch', { env: fakeProviderEnv(server), noCache: true });
      const { summary } = await runRubric({
        instancesDir: dataRoot,
        resultsDir: join(root, 'results'),
        judge: judgeFromClient('openai:gpt-batch', client),
      });
      const row = summary.rows[0];
      const ours = await readFile(row?.presentbench_score as string, 'utf8');
      const batch = harness<{ rows: Array<{ result: string; ok: boolean; error: string | null }> }>({
        op: 'scoring_all',
        result_root: join(root, 'results'),
        data_root: dataRoot,
        judge_model: 'gpt-batch',
        page_count: 4,
      });
      expect(batch.rows).toEqual([{ result: row?.presentbench_result, ok: true, error: null }]);
      expect(await readFile(row?.presentbench_score as string, 'utf8')).toBe(ours);
      const tree = parseYaml(ours);
      expect(
        Math.abs(
          (row?.presentbench_total_percent ?? Number.NaN) - tree.total.weighted_arithmetic_mean_percent,
        ),
      ).toBeLessThanOrEqual(1e-9);
    } finally {
      await server.close();
    }
  });
});

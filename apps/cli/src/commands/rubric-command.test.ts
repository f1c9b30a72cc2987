import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { buildTestPptx } from '@xsb/decks/testing';
import { fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { writeLayoutFixtureDecks, writeTextBoxDeck } from '@xsb/rubric/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runXsb, type XsbArgs } from '../testing-cli';
import { repoFixture } from '../testing-fixtures';

const layout = repoFixture('rubric', 'presentbench-layout');
const layoutData = join(layout, 'data');
const ch1Bits = join(layoutData, 'education/Computer_science_lectures/ch1_bits');
const resultExample = join(layout, 'result-example.yaml');
let root: string;
let cleanup: () => Promise<void>;
let decks: { clean: string; defects: string };

beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-rubric-cli-'));
  decks = await writeLayoutFixtureDecks(root);
});
afterEach(() => cleanup());

const run = (args: XsbArgs, env: Record<string, string> = {}) => runXsb(args, { cwd: root, env });

/** Puts the clean deck where a generator's results tree `<root>/<results>` holds the ch1_bits instance's deck. */
async function placeCleanDeck(results: string): Promise<string> {
  const resultDir = join(
    root,
    results,
    'education/Computer_science_lectures/ch1_bits/generation_task/results',
  );
  await mkdir(resultDir, { recursive: true });
  await copyFile(decks.clean, join(resultDir, 'slides.pptx'));
  return resultDir;
}

describe('xsb rubric check', () => {
  it('prints checks[] of {id, passed, slides, detail} and exits 1 on planted defects', async () => {
    const result = await run([
      'rubric',
      'check',
      decks.defects,
      '--json',
      '--slides',
      '3-6',
      '--language',
      'en',
    ]);
    expect(result.code).toBe(1);
    const output = JSON.parse(result.stdout) as {
      checks: Array<{ id: string; passed: boolean | null; slides: number[]; detail: string }>;
    };
    const failed = Object.fromEntries(
      output.checks.filter((check) => check.passed === false).map((check) => [check.id, check.slides]),
    );
    expect(failed).toEqual({
      slide_count: [],
      bullets_per_slide: [2],
      min_font_size: [3],
      text_overlap: [4],
      off_slide: [6],
      empty_slide: [5],
      language: [7],
    });
    for (const check of output.checks) expect(typeof check.detail).toBe('string');
  });

  it('passes a clean deck with exit 0', async () => {
    const result = await run(['rubric', 'check', decks.clean, '--slides', '3-6', '--require-source']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^pass slide_count\s+4 slides, within 3-6$/m);
    expect(result.stdout).not.toMatch(/FAIL/);
  });

  it('refuses a bad range and an unknown language as usage errors', async () => {
    const result = await run(['rubric', 'check', decks.clean, '--slides', '9-3']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/ERROR: --slides must look like 21-35/);
    const language = await run(['rubric', 'check', decks.clean, '--language', 'english']);
    expect(language.code).toBe(2);
    expect(language.stderr).toMatch(/ERROR: --language must be one of en, de, .*got "english"/);
    expect((await run(['rubric', 'check', decks.clean, '--language', 'zh-CN'])).code).toBe(1);
  });

  it('fails a plain text-box deck on content items and a title-only slide', async () => {
    const deck = await writeTextBoxDeck(root);
    const result = await run(['rubric', 'check', deck, '--json']);
    expect(result.code).toBe(1);
    const checks = Object.fromEntries(
      (JSON.parse(result.stdout).checks as Array<{ id: string; status: string; slides: number[] }>).map(
        (check) => [check.id, [check.status, check.slides]],
      ),
    );
    expect(checks.bullets_per_slide).toEqual(['fail', [1]]);
    expect(checks.empty_slide).toEqual(['fail', [2]]);
    const text = await run(['rubric', 'check', deck]);
    expect(text.stdout).toMatch(/^ +slide 1: 9 content items \(0 with bullet markup; max 6\)$/m);
  });

  it('fails a deck with no slides and prints what it cannot decide as not applicable', async () => {
    const empty = join(root, 'empty.pptx');
    await writeFile(empty, buildTestPptx({ slides: [] }));
    const result = await run(['rubric', 'check', empty]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAIL slide_count +the deck has no slides$/m);
    expect(result.stdout).toMatch(/^n\/a +text_overlap +not applicable: the deck has no slides$/m);
    const json = JSON.parse((await run(['rubric', 'check', empty, '--json'])).stdout);
    expect(json.checks.find((check: { id: string }) => check.id === 'off_slide')).toMatchObject({
      status: 'not applicable',
      passed: null,
    });
  });
});

describe('xsb rubric score', () => {
  it("refuses to invent a number where scoring.py stops, and gives scoring.py's numbers with --errors as-no", async () => {
    const args = [
      'rubric',
      'score',
      '--presentbench-result',
      resultExample,
      '--weights',
      join(layoutData, 'education/judge_weights.yaml'),
      '--json',
    ];
    const strict = await run(args);
    expect(strict.code).toBe(1); // the fixture holds an unanswered item (answer: null)
    const report = JSON.parse(strict.stdout);
    expect(report.presentbench_score_tree).toBeNull();
    expect(report.presentbench.unscoreable_reason).toMatch(/material_dependent → 2 → 2\.2: answer is null/);
    expect(report.presentbench.total_percent).toBeNull();
    expect(report.presentbench.classes.material_independent['1'].score_percent).toBeCloseTo(
      (2 / 3) * 100,
      10,
    );

    const result = await run([...args, '--errors', 'as-no']);
    expect(result.code).toBe(0);
    const { presentbench } = JSON.parse(result.stdout);
    expect(presentbench.total_percent).toBeCloseTo((10 * 2) / 3 + 10 + 20 + 0 + 9, 10);
    expect(presentbench.material_independent_percent).toBeCloseTo((((10 * 2) / 3 + 10) / 40) * 100, 10);
    expect(presentbench.material_dependent_percent).toBeCloseTo((29 / 60) * 100, 10);
    expect(presentbench.classes.material_independent['1']).toMatchObject({ yes_count: 2, valid_count: 3 });
    expect(presentbench.classes.material_dependent['3']).toMatchObject({
      score_percent: 60,
      yes_count: 3,
      valid_count: 5,
    });
  });

  it('prints a class without any judged item as n/a, never 0.0%', async () => {
    await writeFile(
      join(root, 'partial.yaml'),
      "material_independent:\n  '1': {'1.1': {answer: 'yes'}}\n  '2': {}\nmaterial_dependent: {}\n",
    );
    const result = await run([
      'rubric',
      'score',
      '--presentbench-result',
      'partial.yaml',
      '--weights',
      join(layoutData, 'education/judge_weights.yaml'),
    ]);
    expect(result.stdout).toMatch(/material_independent class 2: n\/a \(0 \/ 0 yes\)/);
    expect(result.stdout).toMatch(/ {2}design +n\/a/);
    expect(result.stdout).not.toMatch(/(^|[^0-9])0\.0%/m);
    // the presentbench block of --json carries scoring.py's number for the empty class: 0.0, as upstream
    const json = await run([
      'rubric',
      'score',
      '--presentbench-result',
      'partial.yaml',
      '--weights',
      join(layoutData, 'education/judge_weights.yaml'),
      '--json',
    ]);
    const output = JSON.parse(json.stdout);
    expect(output.presentbench.classes.material_independent['2']).toMatchObject({
      score_percent: 0,
      valid_count: 0,
    });
    expect(output.presentbench_score_tree.total.material_independent.classes.class_2.score_percent).toBe(0);
  });

  it('needs weights with a PresentBench result', async () => {
    const result = await run(['rubric', 'score', '--presentbench-result', resultExample]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/needs --weights/);
  });
});

describe('xsb rubric eval and run', () => {
  it('evaluates offline (lexical): the slide-count item is decided, the rest reported as not judged', async () => {
    const result = await run(['rubric', 'eval', '--instance', ch1Bits, '--deck', decks.clean, '--json']);
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout);
    expect(output.judge).toBe('lexical');
    expect(output.paper.not_judged_count).toBe(13);
    expect(output.paper.total_percent).toBeNull();
    expect(output.paper.dimensions.fundamentals).toMatchObject({ yes: 1, not_judged: 2 });
    // the weighted total of a partial evaluation would count the unjudged classes as zeros
    expect(output.presentbench).toMatchObject({ not_judged_count: 13, total_percent: null });
    expect(output.reused).toBe(false);
    expect(output.parser).toBe('strict');
    expect(output.evaluation_file).toBe(join(root, 'clean.pptx.xsb_rubric_lexical.json'));
    // not in a PresentBench results folder: the result YAML sits beside the deck, unscoreable while items are unjudged
    expect(output.presentbench_result_file).toBe(
      join(root, 'clean.pptx.xsb_rubric_lexical_presentbench.yaml'),
    );
    expect(output.presentbench_score_file).toBeNull();
    const evaluation = JSON.parse(await readFile(output.evaluation_file, 'utf8'));
    expect(evaluation.items).toHaveLength(14);
  });

  it('prints a dimension with unjudged items as n/a with its counts, never the share of the judged few', async () => {
    const result = await run(['rubric', 'eval', '--instance', ch1Bits, '--deck', decks.clean]);
    expect(result.code).toBe(0);
    // fundamentals: the slide-count check said yes, two LLM items were not judged (100.0% before)
    expect(result.stdout).toMatch(/^ {2}fundamentals +n\/a {2}\(1 of 3 judged: 1 yes, 2 not judged\)$/m);
    expect(result.stdout).toMatch(/^paper total \(mean of dimensions\): n\/a \(13 items not judged\)$/m);
    expect(result.stdout).not.toMatch(/\d+\.\d%/);
    // the stored evaluation rescored prints the same
    const scored = await run([
      'rubric',
      'score',
      '--evaluation',
      join(root, 'clean.pptx.xsb_rubric_lexical.json'),
    ]);
    expect(scored.stdout).toMatch(/^ {2}fundamentals +n\/a {2}\(1 of 3 judged: 1 yes, 2 not judged\)$/m);
  });

  it('names the system by --system in the run summary and prints n/a for totals with unjudged items', async () => {
    await placeCleanDeck('results-folder');
    const result = await run([
      'rubric',
      'run',
      '--instances',
      layoutData,
      '--results',
      'results-folder',
      '--system',
      'My Generator',
    ]);
    expect(result.stdout).toMatch(/^system My Generator, judge lexical$/m);
    expect(result.stdout).toMatch(/ch1_bits {2}paper n\/a, PresentBench n\/a \(13 items not judged\)/);
    const summary = JSON.parse(
      await readFile(join(root, 'results-folder', 'xsb_rubric_summary_lexical.json'), 'utf8'),
    );
    expect(summary.system).toBe('My Generator');
    const empty = await run([
      'rubric',
      'run',
      '--instances',
      layoutData,
      '--results',
      'results-folder',
      '--system',
      ' ',
    ]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/--system needs a name/);
  });

  it('reuses a current evaluation, judges again with --force, and keeps two decks of one folder apart', async () => {
    const server = await startFakeLlmServer({ handler: () => ({ text: '\\boxed{yes}' }) });
    try {
      const env = fakeProviderEnv(server) as Record<string, string>;
      const caseDir = ch1Bits;
      const evalDeck = (deck: string, ...extra: string[]) =>
        run(
          ['rubric', 'eval', '--instance', caseDir, '--deck', deck, '--judge', 'openai:gpt-e', ...extra],
          env,
        );
      const first = await evalDeck(decks.clean);
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(/PresentBench weighted total: +100\.0%\n/);
      const calls = server.requests.length;
      expect(calls).toBe(13);
      const again = await evalDeck(decks.clean);
      expect(again.stdout).toMatch(/reused .*clean\.pptx\.xsb_rubric_openai_gpt-e\.json/);
      expect(server.requests.length).toBe(calls);
      // forced: evaluated and written again (the answers themselves may come from the response cache)
      expect((await evalDeck(decks.clean, '--force')).stdout).toMatch(/^wrote .*clean\.pptx\.xsb_rubric/m);
      // another parser is another evaluation: nothing stored is reused
      const lenient = await evalDeck(decks.clean, '--parse', 'lenient', '--json');
      expect(JSON.parse(lenient.stdout)).toMatchObject({ reused: false, parser: 'lenient' });
      const other = await evalDeck(decks.defects, '--json');
      expect(JSON.parse(other.stdout)).toMatchObject({
        reused: false,
        evaluation_file: join(root, 'defects.pptx.xsb_rubric_openai_gpt-e.json'),
      });
      expect(
        JSON.parse(await readFile(join(root, 'clean.pptx.xsb_rubric_openai_gpt-e.json'), 'utf8')),
      ).toMatchObject({
        slide_count: 4,
      });
    } finally {
      await server.close();
    }
  });

  it('runs a results tree through the fake server, then scores and exports the evaluation', async () => {
    const server = await startFakeLlmServer({ handler: () => ({ text: 'All good. \\boxed{yes}' }) });
    try {
      const resultDir = await placeCleanDeck('results');
      const env = fakeProviderEnv(server) as Record<string, string>;
      const ran = await run(
        [
          'rubric',
          'run',
          '--instances',
          layoutData,
          '--results',
          'results',
          '--judge',
          'openai:gpt-cli',
          '--json',
        ],
        env,
      );
      expect(ran.code).toBe(1); // the bad-callable case is a failed row
      // progress counts checklist items (14 for the 4-slide deck), not cases
      expect(ran.stderr).toMatch(/rubric run \(checklist items of 2 cases\): 0\/14/);
      expect(ran.stderr).toMatch(/14\/14 \(100%\)/);
      const summary = JSON.parse(ran.stdout);
      expect(summary.rows[0].presentbench_result).toMatch(
        /ch1_bits\/generation_task\/results\/gpt-cli_\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}\.yaml$/,
      );
      expect(summary.rows.map((row: { status: string }) => row.status)).toEqual(['evaluated', 'failed']);
      expect(summary.categories.education.paper_mean_percent).toBe(100);

      const evaluationFile = join(resultDir, 'slides.pptx.xsb_rubric_openai_gpt-cli.json');
      const scored = await run([
        'rubric',
        'score',
        '--evaluation',
        evaluationFile,
        '--export-presentbench',
        'pb.yaml',
        '--json',
      ]);
      expect(scored.code).toBe(0);
      expect(JSON.parse(scored.stdout).presentbench.total_percent).toBe(100);
      // the case's unequal class weights: 10, 30 | 20, 25, 15 of 100
      const weighted = await run([
        'rubric',
        'score',
        '--evaluation',
        evaluationFile,
        '--instance',
        ch1Bits,
        '--json',
      ]);
      expect(JSON.parse(weighted.stdout).presentbench.classes.material_dependent['2'].weight_percent).toBe(
        25,
      );
      expect(await readFile(join(root, 'pb.yaml'), 'utf8')).toMatch(/answer: "yes"/);

      const exported = await run(['rubric', 'export-scores', '--summary', `genA=${summary.summary_file}`]);
      expect(exported.code).toBe(0);
      expect(exported.stdout).toBe(
        'sample_id,system,score\neducation/Computer_science_lectures/ch1_bits,genA,100\n',
      );
    } finally {
      await server.close();
    }
  });
});

describe('xsb rubric holistic', () => {
  it('scores a results tree with the PPTEval-style baseline into an alignment CSV', async () => {
    const server = await startFakeLlmServer({
      handler: () => ({ text: '{"content": 4, "design": 2, "coherence": 3}' }),
    });
    try {
      await placeCleanDeck('gen');
      const env = fakeProviderEnv(server) as Record<string, string>;
      const result = await run(
        [
          'rubric',
          'holistic',
          '--instances',
          layoutData,
          '--results',
          'gen',
          '--judge',
          'openai:gpt-h',
          '--out',
          'h.csv',
        ],
        env,
      );
      expect(result.code).toBe(1); // the second case has no deck
      expect(await readFile(join(root, 'h.csv'), 'utf8')).toBe(
        'sample_id,system,score\neducation/Computer_science_lectures/ch1_bits,gen,50\n',
      );
      expect(result.stdout).toMatch(/ch2_bad_callable: failed: no slides/);
      const offline = await run(['rubric', 'holistic', decks.clean]);
      expect(offline.code).toBe(2);
      expect(offline.stderr).toMatch(/no offline judge/);
    } finally {
      await server.close();
    }
  });
});

describe('xsb rubric align', () => {
  it('reports mean rho with a seeded bootstrap interval per evaluator', async () => {
    await writeFile(
      join(root, 'rankings.csv'),
      'sample_id,system,rank\ns1,A,1\ns1,B,2\ns1,C,3\ns2,A,3\ns2,B,2\ns2,C,1\n',
    );
    await writeFile(
      join(root, 'ours.csv'),
      'sample_id,system,score\ns1,A,80\ns1,B,60\ns1,C,70\ns2,A,10\ns2,B,20\ns2,C,30\n',
    );
    const result = await run('rubric align --human rankings.csv --scores ours=ours.csv --seed 5 --json');
    expect(result.code).toBe(0);
    const [row] = JSON.parse(result.stdout).evaluators;
    expect(row.evaluator).toBe('ours');
    expect(row.mean_rho).toBeCloseTo(0.75, 12);
    expect(row.interval.seed).toBe(5);
  });
});

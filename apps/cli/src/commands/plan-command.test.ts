import { copyFile, cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { copyOfflineDemo } from '@xsb/eval/testing';
import { fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import type { CostPlan } from '@xsb/plan';
import { stageAnswerHandler } from '@xsb/plan/testing';
import { writeLectureDeck } from '@xsb/rubric/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runXsb, type XsbArgs } from '../testing-cli';
import { repoFixture } from '../testing-fixtures';

let root: string;
let cleanup: () => Promise<void>;
let server: Awaited<ReturnType<typeof startFakeLlmServer>>;
let env: Record<string, string>;

const run = (args: XsbArgs) => runXsb(args, { cwd: root, env });
const readPlan = async (file: string) => JSON.parse(await readFile(join(root, file), 'utf8')) as CostPlan;

describe('xsb plan, xsb usage', () => {
  beforeAll(async () => {
    ({ dir: root, cleanup } = await makeTempDir('xsb-plan-cli-'));
    // An offline demo gives sources, probes, weights and decks; model judges then evaluate them anew.
    await copyOfflineDemo(join(root, 'demo'));
    server = await startFakeLlmServer({ handler: stageAnswerHandler() });
    env = fakeProviderEnv(server);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await cleanup?.();
  });

  it('plan probes keeps the retained source xsb sources decided, unless --source-chars is given', async () => {
    const paragraphs = Array.from(
      { length: 80 },
      (_, i) => `Paragraph ${i}: the heat pump number ${i} reached a seasonal factor of 3.${i % 10}.`,
    );
    await mkdir(join(root, 'kept', 'sources', 'long'), { recursive: true });
    await writeFile(
      join(root, 'kept', 'sources', 'long', 'notes.md'),
      `# Notes\n\n${paragraphs.join('\n\n')}\n`,
    );
    expect((await run('sources --data kept --source-chars 500')).code).toBe(0);
    const plan = async (...extra: string[]) => {
      const result = await run([
        ...'plan probes --data kept --judge anthropic:claude-sonnet-4-5 --chunk-chars 100 --out kept.json'.split(
          ' ',
        ),
        ...extra,
      ]);
      expect(result.code, result.stderr).toBe(0);
      return result.stdout;
    };
    // 500 kept characters in chunks of 100, k = 3: 15 calls (the whole file would need about 200).
    expect(await plan()).toMatch(/^probes\s+15\s/m);
    expect(await plan('--source-chars', '1000')).toMatch(/^probes\s+30\s/m);
  });

  it.each(['anthropic:claude-sonnet-4-5', 'openai:gpt-4.1'])(
    '%s: plan eval → eval → usage reconciles (calls exact, input tokens within a tenth)',
    async (judge) => {
      const file = `eval-${judge.split(':')[0]}.json`;
      const requests = server.requests.length;
      const planned = await run([
        'plan',
        'eval',
        '--data',
        'demo/data',
        '--run',
        'demo',
        '--judge',
        judge,
        '--out',
        file,
      ]);
      expect(planned.code, planned.stderr).toBe(0);
      expect(server.requests.length).toBe(requests); // a plan calls no model
      // The demo's probe banks are the lexical judge's: exact for this command, estimated for a model run.
      expect(planned.stdout).toMatch(/^eval\.answerability\s+40\s+26\s+0\s.*estimated$/m);
      expect(planned.stdout).toMatch(/^total\s+77\s.*estimated$/m);
      expect(planned.stdout).toContain(
        'estimated eval.answerability: assumes the probe bank on disk; a model judge would build its own bank',
      );
      expect(planned.stdout).toContain('as of 2026-12-01');
      const plan = await readPlan(file);
      expect(plan).toMatchObject({ run: 'demo', judge, estimator: { name: 'bytes/4' } });
      expect(plan.rows.find((row) => row.stage === 'eval.answerability')).toMatchObject({
        exact: true,
        input_assumptions: ['assumes the probe bank on disk; a model judge would build its own bank'],
      });

      const evaluated = await run(['eval', '--data', 'demo/data', '--run', 'demo', '--judge', judge]);
      expect(evaluated.code, evaluated.stderr).toBe(0);
      const usage = await run(['usage', '--data', 'demo/data', '--run', 'demo', '--plan', file]);
      expect(usage.code, usage.stdout).toBe(0);
      expect(usage.stdout).toMatch(
        /^eval\.answerability\s+40 \/ 40\s+26 \/ 26\s.*\s-?\d\.\d %.*exact\s+ok$/m,
      );
      expect(usage.stdout).toContain('every exact row matches');

      // A plan that does not fit the ledger is a failed check: exit 1, naming the row.
      const wrong = {
        ...plan,
        rows: plan.rows.map((row, i) => (i === 0 ? { ...row, calls: row.calls + 1 } : row)),
      };
      await writeFile(join(root, `wrong-${file}`), JSON.stringify(wrong));
      const failed = await run(['usage', '--data', 'demo/data', '--run', 'demo', '--plan', `wrong-${file}`]);
      expect(failed.code).toBe(1);
      expect(failed.stdout).toContain('FAIL eval.answerability: 40 provider calls where the plan has 41');
    },
    180_000,
  );

  it('plans rubric run, then reconciles its ledger (the config run’s)', async () => {
    const instances = join(root, 'rubric', 'instances', 'lecture');
    await cp(repoFixture('rubric', 'appendix-cs-overview-ch1'), instances, { recursive: true });
    const results = join(root, 'rubric', 'results', 'lecture', 'generation_task', 'results');
    await mkdir(results, { recursive: true });
    await copyFile(await writeLectureDeck(root, 12), join(results, 'slides.pptx'));
    const flags = [
      '--instances',
      'rubric/instances',
      '--results',
      'rubric/results',
      '--judge',
      'openai:gpt-4.1',
    ];
    const requests = server.requestCount;
    const planned = await run(['plan', 'rubric', 'run', ...flags, '--out', 'rubric.json']);
    expect(planned.code, planned.stderr).toBe(0);
    expect(server.requestCount).toBe(requests); // not a message, not a count: nothing reached the provider
    // 13 + 17 + 13 + 7 items and one fidelity item per slide, less the slide-count check.
    expect(planned.stdout).toMatch(/^rubric\.item\s+61\s+0\s+0\s/m);
    const ran = await run(['rubric', 'run', ...flags]);
    expect(ran.code, ran.stderr).toBe(0);
    const usage = await run(['usage', '--plan', 'rubric.json', '--json']);
    expect(usage.code, usage.stdout).toBe(0);
    const reconciliation = JSON.parse(usage.stdout);
    expect(reconciliation.ok).toBe(true);
    expect(reconciliation.rows[0]).toMatchObject({
      stage: 'rubric.item',
      planned: { calls: 61 },
      actual: { calls: 61 },
    });
    expect(Math.abs(reconciliation.rows[0].input_error)).toBeLessThan(0.1);
    // Planned again: every evaluation is current.
    const again = await run(['plan', 'rubric', 'run', ...flags, '--json']);
    expect(JSON.parse(again.stdout).totals).toMatchObject({ calls: 0, reused_calls: 61 });
  }, 120_000);

  it('plans llm fill (the prompts a record run left, less those the store holds), then reconciles the fill', async () => {
    await cp(join(root, 'demo'), join(root, 'fill'), { recursive: true });
    const data = ['--data', 'fill/data', '--run', 'demo'];
    const recorded = await run(['eval', ...data, '--judge', `record:${join(root, 'store.jsonl')}`]);
    expect(recorded.code).toBe(1); // every recorded prompt is a failed row until its answer is in the store
    const pending = (await readFile(join(root, 'store.pending.jsonl'), 'utf8')).trim().split('\n');
    const first = JSON.parse(pending[0]!) as { key: string };
    await writeFile(
      join(root, 'store.jsonl'),
      `${JSON.stringify({ key: first.key, model: 'anthropic:claude-haiku-4-5', completion: '{}' })}\n`,
    );
    // A model no earlier test of this file judged with: none of these prompts is in the disk cache.
    const fill = ['--store', 'store.jsonl', '--judge', 'anthropic:claude-haiku-4-5'];
    // `llm fill` logs to the ledger of config dataDir and run.
    const inRun = (args: XsbArgs) =>
      runXsb(args, { cwd: root, env: { ...env, XSB_DATA_DIR: 'fill/data', XSB_RUN: 'demo' } });
    const requests = server.requestCount;
    const planned = await inRun(['plan', 'llm', 'fill', ...fill, '--out', 'fill.json']);
    expect(planned.code, planned.stderr).toBe(0);
    expect(server.requestCount).toBe(requests);
    const plan = await readPlan('fill.json');
    expect(plan.totals.calls).toBe(pending.length - 1);
    expect(plan.notes).toContain(
      `1 of ${pending.length} pending prompts the store already answers: not sent`,
    );
    expect(plan.rows.map((row) => row.stage)).toContain('eval.answerability');

    const filled = await inRun(['llm', 'fill', ...fill]);
    expect(filled.code, filled.stderr).toBe(0);
    expect(server.requestCount - requests).toBe(pending.length - 1);
    const usage = await run(['usage', ...data, '--plan', 'fill.json', '--json']);
    expect(usage.code, usage.stdout).toBe(0);
    const reconciliation = JSON.parse(usage.stdout);
    expect(reconciliation.ok).toBe(true);
    for (const row of reconciliation.rows) {
      expect(row.actual.calls).toBe(row.planned.calls);
      expect(Math.abs(row.input_error)).toBeLessThan(0.1);
    }
    // Planned again: the store answers everything, nothing is left to send.
    const again = await inRun(['plan', 'llm', 'fill', ...fill, '--json']);
    expect(JSON.parse(again.stdout).totals.calls).toBe(0);
  }, 120_000);

  it('plans rubric eval (one deck, one instance) without a call, then reconciles the run of it', async () => {
    const instance = join(root, 'rubric-eval', 'instance');
    await cp(repoFixture('rubric', 'appendix-cs-overview-ch1'), instance, { recursive: true });
    const deck = join(root, 'rubric-eval', 'deck.pptx');
    await copyFile(await writeLectureDeck(join(root, 'rubric-eval'), 12), deck);
    const flags = [
      '--instance',
      'rubric-eval/instance/instance.yaml',
      '--deck',
      'rubric-eval/deck.pptx',
      '--judge',
      'anthropic:claude-sonnet-4-5',
    ];
    const requests = server.requestCount;
    const planned = await run(['plan', 'rubric', 'eval', ...flags, '--out', 'rubric-eval.json']);
    expect(planned.code, planned.stderr).toBe(0);
    expect(server.requestCount).toBe(requests);
    expect(planned.stdout).toMatch(/^rubric\.item\s+61\s+0\s+0\s/m);
    const plan = await readPlan('rubric-eval.json');
    expect(plan.rows[0]!.cache_read_tokens / plan.rows[0]!.input_tokens).toBeGreaterThan(0.5);
    const ran = await run(['rubric', 'eval', ...flags]);
    expect(ran.code, ran.stderr).toBe(0);
    const usage = await run(['usage', '--plan', 'rubric-eval.json', '--json']);
    expect(usage.code, usage.stdout).toBe(0);
    expect(JSON.parse(usage.stdout).rows[0]).toMatchObject({ planned: { calls: 61 }, actual: { calls: 61 } });
    const pdfOnly = await run(['plan', 'rubric', 'eval', ...flags, '--attach-pdf']);
    expect(pdfOnly.code).toBe(2);
    expect(pdfOnly.stderr).toMatch(/^ERROR: --attach-pdf needs a PDF deck/m);
  }, 120_000);

  it('--exact counts input tokens at the provider’s endpoint; config prices replace the table', async () => {
    await writeFile(
      join(root, 'xsb.config.json'),
      JSON.stringify({ prices: { 'claude-haiku-4-5': { input: 2, output: 10 } } }),
    );
    try {
      const counts = server.tokenCountRequests;
      const messages = server.requests.length;
      const httpRequests = server.requestCount;
      const result = await run([
        'plan',
        'eval',
        '--data',
        'demo/data',
        '--run',
        'demo',
        '--force',
        '--judge',
        'anthropic:claude-haiku-4-5',
        '--exact',
        '--json',
      ]);
      expect(result.code, result.stderr).toBe(0);
      const plan = JSON.parse(result.stdout) as CostPlan;
      expect(plan.estimator.name).toBe('anthropic count_tokens');
      expect(plan.rows.every((row) => row.calls === 0 || row.token_source === 'count_endpoint')).toBe(true);
      expect(server.tokenCountRequests - counts).toBe(plan.totals.calls);
      // Counting is all it asked: no message call, no batch, every HTTP request a count.
      expect(server.requests.length).toBe(messages);
      expect(server.requestCount - httpRequests).toBe(plan.totals.calls);
      expect(plan.prices).toMatchObject({
        source: 'config',
        models: { 'claude-haiku-4-5': { input: 2, output: 10 } },
      });
    } finally {
      await writeFile(join(root, 'xsb.config.json'), '{}');
    }
  });

  it('plan weights on a lexical probe bank says what the estimate assumes', async () => {
    const assumption = 'assumes the probe bank on disk; a model judge would build its own bank';
    const model = await run([
      'plan',
      'weights',
      '--data',
      'demo/data',
      '--judge',
      'anthropic:claude-sonnet-4-5',
    ]);
    expect(model.code, model.stderr).toBe(0);
    expect(model.stdout).toMatch(/^weights\s+\d+\s.*estimated$/m);
    expect(model.stdout).toContain(`estimated weights: ${assumption}`);
    expect(model.stdout).toContain(
      'note: probe banks on disk made by the lexical judge are counted as they are',
    );
    const json = await run([
      'plan',
      'weights',
      '--data',
      'demo/data',
      '--judge',
      'anthropic:claude-sonnet-4-5',
      '--json',
    ]);
    const plan = JSON.parse(json.stdout) as CostPlan;
    expect(plan.rows.map((row) => [row.stage, row.exact, row.input_assumptions])).toEqual([
      ['weights', true, [assumption]],
    ]);
  });

  it('usage errors stop before any work (exit 2)', async () => {
    const noRun = await run([
      'plan',
      'eval',
      '--data',
      'demo/data',
      '--run',
      'nope',
      '--judge',
      'openai:gpt-4.1',
    ]);
    expect(noRun.code).toBe(2);
    expect(noRun.stderr).toMatch(/^ERROR: run "nope": deck folder .* does not exist/m);
    const noPlan = await run(['usage', '--data', 'demo/data', '--run', 'demo', '--plan', 'missing.json']);
    expect(noPlan.code).toBe(2);
    expect(noPlan.stderr).toMatch(/^ERROR: --plan .*missing\.json does not exist/m);
    const otherRun = await run([
      'usage',
      '--data',
      'demo/data',
      '--run',
      'default',
      '--plan',
      'eval-openai.json',
    ]);
    expect(otherRun.code).toBe(2);
  });
});

// The set-up the plan = run tests share: the fake provider, the demo sources, a model judge that counts
// the calls it receives per stage, and the plan's calls per stage.
import { cp, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { RunLayout } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { createLlmClient, type Judge, judgeFromClient, type LlmClient } from '@xsb/llm';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, beforeAll } from 'vitest';
import { CostPlanBuilder } from './cost-plan-builder';
import { stageAnswerHandler } from './stage-answer-handler';

export const PLAN_RUN_MODEL = 'anthropic:claude-sonnet-4-5';
const FIXTURE_SOURCES = resolve(import.meta.dirname, '..', '..', '..', 'fixtures', 'sources');

export const ledgerOf = (layout: RunLayout) => join(layout.dataDir, 'ledger.jsonl');

type CostPlan = Awaited<ReturnType<CostPlanBuilder['finish']>>;

/** The planned calls per stage, stages without a call left out. */
export const callsOf = (plan: CostPlan) =>
  Object.fromEntries(plan.rows.filter((row) => row.calls > 0).map((row) => [row.stage, row.calls]));

/** The plan `build` makes for `judge`, finished. */
export async function plannedCalls(
  build: (builder: CostPlanBuilder) => Promise<unknown>,
  judge: Judge,
): Promise<CostPlan> {
  const builder = new CostPlanBuilder({ judge: judge.kind === 'offline' ? 'lexical' : PLAN_RUN_MODEL });
  await build(builder);
  return builder.finish({ command: 'test', run: null, ledgerLinesBefore: 0 });
}

/** Starts the stage simulator for the calling test file and removes its folders after it. */
export function usePlanRunFixture(prefix: string) {
  let server: FakeLlmServer;
  const cleanups: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    server = await startFakeLlmServer({ handler: stageAnswerHandler() });
  });
  afterAll(async () => {
    await server?.close();
    for (const cleanup of cleanups) await cleanup();
  });
  return {
    server: () => server,
    /** A fresh data folder holding the demo sources. */
    async demoData(): Promise<RunLayout> {
      const { dir, cleanup } = await makeTempDir(prefix);
      cleanups.push(cleanup);
      for (const caseId of await readdir(FIXTURE_SOURCES))
        await cp(join(FIXTURE_SOURCES, caseId), join(dir, 'sources', caseId), { recursive: true });
      return new RunLayout(dir);
    },
    /** A model judge through the real SDK client and the fake server, counting the calls it receives per stage. */
    scriptedJudge(layout: RunLayout, readsImages: boolean) {
      const calls: Record<string, number> = {};
      const inner = createLlmClient(PLAN_RUN_MODEL, {
        env: fakeProviderEnv(server),
        ledgerFile: ledgerOf(layout),
      });
      const client: LlmClient = {
        judgeId: inner.judgeId,
        complete: (request, options) => {
          const stage = request.stage ?? 'unstaged';
          calls[stage] = (calls[stage] ?? 0) + 1;
          return inner.complete(request, options);
        },
      };
      return { judge: judgeFromClient(PLAN_RUN_MODEL, client, { readsImages }), calls };
    },
  };
}

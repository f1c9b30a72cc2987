import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RunLayout, readJsonlAll, type StageEvent } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { formatDeckText, readDeck } from '@xsb/decks';
import {
  createEvalJudge,
  DEFAULT_CLAIM_SETTINGS,
  DEMO_RUN,
  EVAL_STAGES,
  type EvalJudge,
  evalJudgeFrom,
  extractClaimsLexically,
  type RunEvaluationOptions,
  runDemo,
  runEvaluation,
  selectEvaluationJobs,
} from '@xsb/eval';
import {
  createLlmClient,
  judgeFromClient,
  offlineJudge,
  type UsageLedgerEntry,
  usageLedgerEntrySchema,
} from '@xsb/llm';
import { fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CostPlanBuilder } from './cost-plan-builder';
import { planEval } from './plan-eval';
import { INPUT_TOKEN_TOLERANCE } from './reconcile-usage';
import { stageAnswerHandler } from './stage-answer-handler';

/**
 * Plan = run for stage 5 (issue 21): on the demo's decks, the plan of each eval stage must make the
 * calls the run then makes, for a model judge that reads images, one that does not, and the offline
 * judge, under the default settings, with every deck sparse (image mode), and with judge input
 * "image". The scripted model extracts the claims the offline extractor finds (the plan's stated
 * assumption), so the verification batches are comparable too.
 */

const CASE = 'energy_heat_pump_pilot';
const MODEL_SPEC = 'openai:gpt-4.1';
const STAGES = [EVAL_STAGES.answerability, EVAL_STAGES.claimExtraction, EVAL_STAGES.claimVerification];

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let server: Awaited<ReturnType<typeof startFakeLlmServer>>;
let dataDir: string;
let ledgerFile: string;

/** Answers a claim extraction with the offline extractor's claims of the same deck text. */
async function lexicalClaimsByDeckText(): Promise<Map<string, string>> {
  const { jobs } = await selectEvaluationJobs(new RunLayout(dataDir), DEMO_RUN, { cases: [CASE] });
  const answers = new Map<string, string>();
  for (const job of jobs) {
    const deck = await readDeck(job.deckFile);
    const claims = extractClaimsLexically(deck, DEFAULT_CLAIM_SETTINGS.max_claims);
    answers.set(
      formatDeckText(deck),
      JSON.stringify({ claims: claims.map((claim) => ({ slide: claim.slide_index, claim: claim.text })) }),
    );
  }
  return answers;
}

beforeAll(async () => {
  temp = await makeTempDir('xsb-plan-run-eval-');
  await runDemo({ outDir: temp.dir });
  dataDir = join(temp.dir, 'data');
  ledgerFile = new RunLayout(dataDir).usageLedgerFile(DEMO_RUN);
  const claims = await lexicalClaimsByDeckText();
  const simulated = stageAnswerHandler();
  server = await startFakeLlmServer({
    handler: (request) => {
      if (!request.system.startsWith('You extract atomic factual claims')) return simulated(request);
      const from = request.text.indexOf('<deck>\n') + '<deck>\n'.length;
      const answer = claims.get(request.text.slice(from, request.text.indexOf('\n</deck>')));
      if (answer === undefined) throw new Error('a claim extraction of a deck the test does not know');
      return { text: answer };
    },
  });
}, 180_000);
afterAll(async () => {
  await server?.close();
  await temp?.cleanup();
});

/** One PNG file per slide (its bytes do not matter: the fake server bills an image 1,600 tokens). */
async function renderOnePerSlide(deckFile: string, outDir: string) {
  const deck = await readDeck(deckFile);
  await mkdir(outDir, { recursive: true });
  return Promise.all(
    deck.slides.map(async (slide) => {
      const file = join(outDir, `slide-${String(slide.index).padStart(3, '0')}.png`);
      await writeFile(file, new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
      return { index: slide.index, file, mediaType: 'image/png' as const };
    }),
  );
}

const judges: Record<string, () => EvalJudge> = {
  'a model that reads images': () =>
    evalJudgeFrom(
      judgeFromClient(
        MODEL_SPEC,
        createLlmClient(MODEL_SPEC, { env: fakeProviderEnv(server), ledgerFile, stage: 'eval' }),
        { readsImages: true },
      ),
    ),
  'a model that reads no images': () =>
    evalJudgeFrom(
      judgeFromClient(
        MODEL_SPEC,
        createLlmClient(MODEL_SPEC, { env: fakeProviderEnv(server), ledgerFile, stage: 'eval' }),
        { readsImages: false },
      ),
    ),
  'the offline judge': () => createEvalJudge('lexical', { ledgerFile }),
};

const settings: Record<string, Pick<RunEvaluationOptions, 'imageModeWordsPerSlide' | 'judgeInput'>> = {
  'default settings': {},
  'every deck sparse': { imageModeWordsPerSlide: 1000 },
  'judge input image': { judgeInput: 'image' },
};

async function ledgerLines(): Promise<UsageLedgerEntry[]> {
  return readJsonlAll(ledgerFile, usageLedgerEntrySchema);
}

let variant = 0;

describe('plan = run for stage 5 on the demo decks', () => {
  const cases = Object.keys(judges).flatMap((judge) =>
    Object.keys(settings).map((setting) => [judge, setting]),
  );
  it.each(cases)(
    '%s, %s: calls per eval stage equal, input tokens within the estimator error',
    async (judgeName, settingName) => {
      const judge = judges[judgeName]!();
      variant += 1;
      const options = {
        dataDir,
        run: DEMO_RUN,
        filters: { cases: [CASE] },
        variant: `plan-run-${variant}`,
        correctnessCacheDir: join(temp.dir, `correctness-${variant}`),
        ...settings[settingName],
      };
      const spec = judge.kind === 'offline' ? offlineJudge.id : MODEL_SPEC;
      const builder = new CostPlanBuilder({ judge: spec, env: fakeProviderEnv(server) });
      await planEval(builder, {
        ...options,
        judge: { id: judge.id, kind: judge.kind, capabilities: judge.capabilities },
      });
      const plan = await builder.finish({ command: 'eval', run: DEMO_RUN, ledgerLinesBefore: 0 });

      const before = (await ledgerLines()).length;
      const events: StageEvent[] = [];
      const onEvent = (event: StageEvent) => events.push(event);
      const run = await runEvaluation({ ...options, judge, renderSlides: renderOnePerSlide, onEvent });
      const lines = (await ledgerLines()).slice(before);

      expect(run.results).toHaveLength(9);
      const refused = settingName === 'judge input image' && !judge.capabilities.readsImages;
      expect(run.results.every((result) => result.outcome === (refused ? 'failed' : 'evaluated'))).toBe(true);
      for (const stage of STAGES) {
        const row = plan.rows.find((r) => r.stage === stage)!;
        const ran = lines.filter((line) => line.stage === stage);
        expect(row.calls + row.cached_calls, stage).toBe(ran.length);
        // Each model call is a call-made event of its stage, with the usage the ledger holds; the
        // offline judge's rules make none.
        const calls = events.flatMap((event) =>
          event.type === 'call-made' && event.stage === stage ? [event] : [],
        );
        const inputs = (entries: Array<{ inputTokens: number }>) => entries.map((e) => e.inputTokens).sort();
        if (judge.kind === 'offline') expect(calls, stage).toEqual([]);
        else expect(inputs(calls.map((call) => call.usage)), stage).toEqual(inputs(ran));
        if (judge.kind === 'offline' || ran.length === 0) continue;
        const billed = ran.reduce(
          (sum, line) => sum + line.inputTokens + line.cacheReadTokens + line.cacheWriteTokens,
          0,
        );
        expect(Math.abs(row.input_tokens - billed) / billed, stage).toBeLessThanOrEqual(
          INPUT_TOKEN_TOLERANCE,
        );
      }
      if (refused) expect(plan.totals.calls).toBe(0);
    },
    240_000,
  );
});

/**
 * The estimator's error (`pnpm --filter @xsb/plan bench -- --parts estimator`): every request a plan
 * renders for the demo pipeline from nothing (probes, weights, eval; `planDemo`) and for the rubric
 * appendix instance with a 25-slide deck (`planRubric`), counted three ways per stage:
 * xsb's bytes/4 estimator, the provider count endpoints of the fake server (Anthropic
 * `count_tokens`, OpenAI `responses/input_tokens`, through the real SDKs: what `--exact` asks), and
 * the o200k_base tokenizer of GPT-4o / GPT-4.1 (gpt-tokenizer) over the same text. The fake counts
 * bytes / 4 of what the wire body carries, so its column checks the framing the estimator leaves out
 * (the schema instruction text, the Responses format); o200k_base checks the bytes/4 rule itself
 * against a real tokenizer. Anthropic's tokenizer is not published: no column for it.
 */
import { copyFile, cp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CompletionRequest, createTokenCounter, estimateTokens } from '@xsb/llm';
import { fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { writeLectureDeck } from '@xsb/rubric/testing';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { CostPlanBuilder, type PlannedCall } from '../src/cost-plan-builder';
import { planDemo } from '../src/plan-demo';
import { planRubric } from '../src/plan-rubric';

const APPENDIX = join(import.meta.dirname, '../../../fixtures/rubric/appendix-cs-overview-ch1');

/** Keeps every planned request (a bench only: the builder itself keeps counters). */
class RecordingPlanBuilder extends CostPlanBuilder {
  readonly calls: PlannedCall[] = [];
  override async add(call: PlannedCall): Promise<void> {
    this.calls.push(call);
    await super.add(call);
  }
}

/** The text a tokenizer sees: system prompt, every text part, the response schema. */
function textOf(request: CompletionRequest): string | null {
  const pieces = [request.system ?? ''];
  for (const message of request.messages) {
    if (typeof message.content === 'string') {
      pieces.push(message.content);
      continue;
    }
    for (const part of message.content) {
      if (part.type !== 'text') return null; // images and PDFs: billed by pixels / pages, not text
      pieces.push(part.text);
    }
  }
  if (request.responseSchema) pieces.push(JSON.stringify(request.responseSchema.schema));
  return pieces.join('\n');
}

const root = join(tmpdir(), `xsb-estimator-bench-${process.pid}`);
const server = await startFakeLlmServer();
const env = fakeProviderEnv(server);
const pct = (value: number, base: number) => `${(((value - base) / base) * 100).toFixed(1)} %`;

try {
  const calls: PlannedCall[] = [];
  const demo = new RecordingPlanBuilder({ judge: 'anthropic:claude-sonnet-4-5', env });
  await planDemo(demo, { outDir: join(root, 'demo') });
  calls.push(...demo.calls);
  const instancesDir = join(root, 'rubric', 'instances');
  await cp(APPENDIX, join(instancesDir, 'lecture'), { recursive: true });
  const results = join(root, 'rubric', 'results', 'lecture', 'generation_task', 'results');
  await mkdir(results, { recursive: true });
  await copyFile(await writeLectureDeck(root, 25), join(results, 'slides.pptx'));
  const rubric = new RecordingPlanBuilder({ judge: 'anthropic:claude-sonnet-4-5', env });
  await planRubric(rubric, { instancesDir, resultsDir: join(root, 'rubric', 'results') });
  calls.push(...rubric.calls);

  const anthropic = createTokenCounter('anthropic:claude-sonnet-4-5', { env });
  const openai = createTokenCounter('openai:gpt-4.1', { env });
  const stages = new Map<
    string,
    { calls: number; estimate: number; anthropic: number; openai: number; o200k: number }
  >();
  for (const call of calls) {
    const text = textOf(call.request);
    if (text === null) continue;
    const row = stages.get(call.stage) ?? { calls: 0, estimate: 0, anthropic: 0, openai: 0, o200k: 0 };
    row.calls += 1;
    row.estimate += estimateTokens(call.request).inputTokens;
    row.anthropic += await anthropic.count(call.request);
    row.openai += await openai.count(call.request);
    row.o200k += countTokens(text);
    stages.set(call.stage, row);
  }
  console.log(
    '| stage | requests | bytes/4 estimate | vs fake Anthropic count_tokens | vs fake OpenAI input_tokens | o200k_base tokens | bytes/4 vs o200k_base |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const [stage, row] of [...stages].sort(([a], [b]) => a.localeCompare(b)))
    console.log(
      `| ${stage} | ${row.calls} | ${row.estimate.toLocaleString('en-US')} | ${pct(row.estimate, row.anthropic)} | ${pct(row.estimate, row.openai)} | ${row.o200k.toLocaleString('en-US')} | ${pct(row.estimate, row.o200k)} |`,
    );
  console.log(
    `(token-count requests the fake answered: ${server.tokenCountRequests}; message calls: ${server.requests.length})`,
  );
} finally {
  await server.close();
  await rm(root, { recursive: true, force: true });
}

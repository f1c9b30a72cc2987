import { existsSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { type Condition, type Deck, RunLayout, UsageError } from '@xsb/core';
import { BASELINE_SYSTEM, buildOutlineRequest, detectSourceLanguage, readDeck } from '@xsb/decks';
import { DEMO_IMPORTED_SYSTEM, DEMO_RUN, defaultFixturesDir, type EvaluationJob } from '@xsb/eval';
import { describeJudge } from '@xsb/llm';
import { discoverSourceCases, type SourceCase } from '@xsb/sources';
import { BUILT_IN_AUDIENCES } from '@xsb/weights';
import type { CostPlanBuilder } from './cost-plan-builder';
import { cappedOutput, OUTPUT_TOKEN_ESTIMATES } from './output-token-estimates';
import { planEval } from './plan-eval';
import { planProbes } from './plan-probes';
import { planWeights } from './plan-weights';
import { STAND_IN_ASSUMPTIONS, standInDeck, standInProbes } from './stand-ins';

export const OUTLINE_STAGE = 'decks.outline';

export interface PlanDemoOptions {
  /** The demo's output folder (`xsb demo --out`, default `./xsb-demo`). */
  outDir: string;
  fixturesDir?: string;
  /** `xsb demo --sources DIR`: a folder of case folders (then no NotebookLM import). */
  sourcesDir?: string;
  force?: boolean;
}

/** The demo's cases: those already copied into its data folder, else the fixture folders. */
async function demoCases(dataDir: string, sourcesRoot: string): Promise<SourceCase[]> {
  if (existsSync(join(dataDir, 'sources'))) return (await discoverSourceCases(dataDir)).cases;
  // Cases are read from `<dir>/sources/<case>/`, as the demo's copy of them will be laid out.
  if (basename(sourcesRoot) !== 'sources')
    throw new UsageError(
      `to plan a demo on ${sourcesRoot}, name the folder "sources" (as fixtures/bench/sources), or run the demo once so its copy exists`,
    );
  return (await discoverSourceCases(dirname(sourcesRoot))).cases;
}

const hasFile = (file: string) => existsSync(file) && statSync(file).size > 0;

type DemoRow = { sourceCase: SourceCase; condition: Condition; audience: string };
type AssumedJob = { job: EvaluationJob; deck: Deck; assumption?: string };
type PlannedSources = Awaited<ReturnType<typeof planProbes>>;

/** The run sheet runDemo writes: an agnostic deck per case, a conditioned one per audience. */
function demoRows(cases: readonly SourceCase[]): DemoRow[] {
  return cases.flatMap((sourceCase) => [
    { sourceCase, condition: 'audience_agnostic' as Condition, audience: 'all' },
    ...sourceCase.metadata.valid_audiences.map((audience) => ({
      sourceCase,
      condition: 'audience_conditioned' as Condition,
      audience,
    })),
  ]);
}

function deckFileOf(layout: RunLayout, row: DemoRow): string {
  return join(
    layout.deckDir({
      run: DEMO_RUN,
      system: BASELINE_SYSTEM,
      condition: row.condition,
      audience: row.audience,
      caseLabel: row.sourceCase.caseId,
    }),
    `${row.sourceCase.caseId}.pptx`,
  );
}

/** Stage 4: one outline call per deck not on disk (a model judge; the offline rule makes none). */
async function planOutlines(
  builder: CostPlanBuilder,
  layout: RunLayout,
  rows: readonly DemoRow[],
  textOf: (caseLabel: string) => string | undefined,
  force: boolean,
): Promise<void> {
  if (describeJudge(builder.context.judge).kind === 'offline') return;
  builder.stage(OUTLINE_STAGE);
  for (const row of rows) {
    if (!force && hasFile(deckFileOf(layout, row))) {
      builder.reuse(OUTLINE_STAGE, 1);
      continue;
    }
    const sourceText = textOf(row.sourceCase.caseId);
    if (sourceText === undefined) continue;
    const profile = BUILT_IN_AUDIENCES.find((candidate) => candidate.id === row.audience);
    const language = await detectSourceLanguage(sourceText);
    const request = buildOutlineRequest({
      sourceText,
      condition: row.condition,
      audience: row.audience,
      maxSlides: STAND_IN_ASSUMPTIONS.slidesPerDeck,
      ...(language ? { language } : {}),
      ...(row.condition === 'audience_conditioned' && profile
        ? { audienceProfile: profile.description }
        : {}),
    });
    await builder.add({
      stage: OUTLINE_STAGE,
      request,
      outputTokens: cappedOutput(OUTPUT_TOKEN_ESTIMATES.outline, request.maxTokens),
    });
  }
}

/** The baseline's evaluation jobs, over the deck on disk or a stand-in for a deck this run makes. */
async function baselineJobs(
  layout: RunLayout,
  rows: readonly DemoRow[],
  force: boolean,
): Promise<AssumedJob[]> {
  const jobs: AssumedJob[] = [];
  for (const row of rows) {
    const deckFile = deckFileOf(layout, row);
    const onDisk = !force && hasFile(deckFile);
    const deck = onDisk
      ? await readDeck(deckFile)
      : standInDeck(`${row.sourceCase.caseId} ${row.condition} ${row.audience}`);
    const assumption = onDisk
      ? undefined
      : `the deck does not exist yet: a stand-in of ${STAND_IN_ASSUMPTIONS.slidesPerDeck} slides × ${STAND_IN_ASSUMPTIONS.bulletsPerSlide} bullets of ~${STAND_IN_ASSUMPTIONS.wordsPerBullet} words`;
    const audiences =
      row.condition === 'audience_agnostic' ? row.sourceCase.metadata.valid_audiences : [row.audience];
    for (const audience of audiences)
      jobs.push({
        job: {
          system: BASELINE_SYSTEM,
          condition: row.condition,
          deckAudience: row.audience,
          caseLabel: row.sourceCase.caseId,
          deckFile,
          audience,
        },
        deck,
        ...(assumption ? { assumption } : {}),
      });
  }
  return jobs;
}

/** The NotebookLM decks the demo imports from the fixtures, one job per audience of their case. */
async function importedJobs(fixturesDir: string, cases: readonly SourceCase[]): Promise<AssumedJob[]> {
  const importDir = join(fixturesDir, 'demo', 'notebooklm');
  const jobs: AssumedJob[] = [];
  for (const file of existsSync(importDir) ? (await readdir(importDir)).sort() : []) {
    if (!file.endsWith('.pdf')) continue;
    const caseLabel = file.replace(/\.pdf$/, '');
    const sourceCase = cases.find((c) => c.caseId === caseLabel);
    if (!sourceCase) continue;
    const deck = await readDeck(join(importDir, file));
    for (const audience of sourceCase.metadata.valid_audiences)
      jobs.push({
        job: {
          system: DEMO_IMPORTED_SYSTEM,
          condition: 'audience_agnostic',
          deckAudience: 'all',
          caseLabel,
          deckFile: join(importDir, file),
          audience,
        },
        deck,
      });
  }
  return jobs;
}

/** A bank this run makes is a stand-in of typical probes, as many as the chunks suggest. */
function assumedBankOf(layout: RunLayout, sources: PlannedSources) {
  const chunksOf = new Map(sources.map((source) => [source.caseId, source]));
  return (caseLabel: string) => {
    const planned = chunksOf.get(caseLabel);
    if (planned && !planned.regenerated && existsSync(layout.probesFile(caseLabel))) return undefined;
    const chunks = planned?.chunks ?? 1;
    const count = STAND_IN_ASSUMPTIONS.probesPerChunk * chunks;
    return {
      probes: standInProbes(caseLabel, count),
      assumption: `the probe bank is made by this run: ${count} probes assumed (${STAND_IN_ASSUMPTIONS.probesPerChunk} per source chunk), of typical length`,
    };
  };
}

/**
 * `xsb demo`'s calls with a model judge, stage by stage as `runDemo` makes them: probes (exact, from
 * the fixtures' extracted text), weights, deck outlines, evaluation. On a fresh output folder the
 * later stages rest on artifacts the earlier ones make from model answers, so they are planned with
 * stand-ins (banks of {@link STAND_IN_ASSUMPTIONS}.probesPerChunk probes per chunk, decks of
 * `slidesPerDeck` slides) and marked estimated; every artifact already in the output folder is used
 * as it is and its work reused. The `lexical` judge plans its ledger lines only (no cost).
 */
export async function planDemo(builder: CostPlanBuilder, options: PlanDemoOptions): Promise<void> {
  const fixturesDir = options.fixturesDir ?? defaultFixturesDir();
  const sourcesRoot = resolve(options.sourcesDir ?? join(fixturesDir, 'sources'));
  const dataDir = resolve(options.outDir, 'data');
  const layout = new RunLayout(dataDir);
  const force = options.force ?? false;
  const cases = await demoCases(dataDir, sourcesRoot);
  const sources = await planProbes(builder, { layout, cases, force });
  const textOf = (caseLabel: string) => sources.find((source) => source.caseId === caseLabel)?.text;
  const assumedBank = assumedBankOf(layout, sources);
  const pairs = cases.flatMap((sourceCase) =>
    sourceCase.metadata.valid_audiences.map((audience) => ({ caseLabel: sourceCase.caseId, audience })),
  );
  await planWeights(builder, { layout, pairs, force, assumedBank });
  const rows = demoRows(cases);
  await planOutlines(builder, layout, rows, textOf, force);
  // Stages 5–6: over the decks on disk when they all exist, else over stand-ins for the missing ones.
  const missing = rows.filter((row) => force || !hasFile(deckFileOf(layout, row)));
  if (missing.length === 0 && existsSync(layout.decksRoot(DEMO_RUN))) {
    await planEval(builder, { dataDir, run: DEMO_RUN, force, assumedBank, weightsPlanned: true });
    return;
  }
  const assumedJobs = [
    ...(await baselineJobs(layout, rows, force)),
    ...(options.sourcesDir ? [] : await importedJobs(fixturesDir, cases)),
  ];
  await planEval(builder, {
    dataDir,
    run: DEMO_RUN,
    force,
    assumedJobs,
    weightsPlanned: true,
    assumedBank,
    assumedSource: textOf,
  });
}

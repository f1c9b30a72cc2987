import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { type Deck, RunLayout, runSheetRowSchema, UsageError } from '@xsb/core';
import { BASELINE_SYSTEM, deckGenerationWorkList, OUTLINE_STAGE, type RunSheet, readDeck } from '@xsb/decks';
import {
  DEMO_IMPORTED_SYSTEM,
  DEMO_RUN,
  defaultFixturesDir,
  demoSheetRows,
  type EvaluationJob,
} from '@xsb/eval';
import { describeJudge, type JudgeDescription } from '@xsb/llm';
import { discoverSourceCases, type SourceCase } from '@xsb/sources';
import { BUILT_IN_AUDIENCES } from '@xsb/weights';
import type { CostPlanBuilder } from './cost-plan-builder';
import { planEval } from './plan-eval';
import { planProbes } from './plan-probes';
import { planWeights, priceUnit } from './plan-weights';
import { STAND_IN_ASSUMPTIONS, standInDeck, standInProbes } from './stand-ins';

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

type AssumedJob = { job: EvaluationJob; deck: Deck; assumption?: string };
type PlannedSources = Awaited<ReturnType<typeof planProbes>>;
type DeckUnits = Awaited<ReturnType<typeof deckGenerationWorkList>>;

/** The run sheet runDemo writes (rows of @xsb/eval's demoSheetRows), held in memory: a plan writes nothing. */
function demoSheet(layout: RunLayout, cases: readonly SourceCase[]): RunSheet {
  const file = join(layout.runDir(DEMO_RUN), 'run_sheet.csv');
  const entries = demoSheetRows(cases, file).map((cells, index) => ({
    line: index + 2,
    row: runSheetRowSchema.parse(cells),
    sourceDocument: resolve(dirname(file), cells.source_document ?? ''),
    promptPath: '',
    outputDeckPath: '',
  }));
  return { file, entries, invalid: [] };
}

/** Stage 4's work list, the one runDemo's deck stage runs (generateDecksFromRunSheet over the demo sheet). */
export function demoDeckWorkList(
  layout: RunLayout,
  cases: readonly SourceCase[],
  judge: JudgeDescription,
  force = false,
): Promise<DeckUnits> {
  const sheet = demoSheet(layout, cases);
  return deckGenerationWorkList({
    sheet,
    layout,
    run: DEMO_RUN,
    judge,
    audienceProfiles: BUILT_IN_AUDIENCES,
    force,
  });
}

/** Stage 4 priced: each outline call of the list; the offline judge's lexical rule makes none (no row). */
export async function planOutlines(builder: CostPlanBuilder, units: DeckUnits, judge: JudgeDescription) {
  if (judge.kind === 'offline') return;
  builder.stage(OUTLINE_STAGE);
  for (const unit of units) await priceUnit(builder, unit, 1);
}

/** The baseline's evaluation jobs, over the deck the list reuses or a stand-in for a deck this run makes. */
async function baselineJobs(units: DeckUnits, cases: readonly SourceCase[]): Promise<AssumedJob[]> {
  const jobs: AssumedJob[] = [];
  for (const unit of units) {
    const { row } = unit.input.task.entry;
    const deckFile = unit.input.task.outputDeckPath;
    const onDisk = unit.decision.kind === 'reuse';
    const deck = onDisk
      ? await readDeck(deckFile)
      : standInDeck(`${row.case_label} ${row.condition} ${row.audience}`);
    const assumption = onDisk
      ? undefined
      : `the deck does not exist yet: a stand-in of ${STAND_IN_ASSUMPTIONS.slidesPerDeck} slides × ${STAND_IN_ASSUMPTIONS.bulletsPerSlide} bullets of ~${STAND_IN_ASSUMPTIONS.wordsPerBullet} words`;
    const validAudiences = cases.find((c) => c.caseId === row.case_label)?.metadata.valid_audiences ?? [];
    const audiences = row.condition === 'audience_agnostic' ? validAudiences : [row.audience];
    for (const audience of audiences)
      jobs.push({
        job: {
          system: BASELINE_SYSTEM,
          condition: row.condition,
          deckAudience: row.audience,
          caseLabel: row.case_label,
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
  const judge = describeJudge(builder.context.judge);
  const units = await demoDeckWorkList(layout, cases, judge, force);
  await planOutlines(builder, units, judge);
  // Stages 5–6: over the decks on disk when the list reuses them all, else over stand-ins for the others.
  if (units.every((unit) => unit.decision.kind === 'reuse') && existsSync(layout.decksRoot(DEMO_RUN))) {
    await planEval(builder, { dataDir, run: DEMO_RUN, force, assumedBank, weightsPlanned: true });
    return;
  }
  const assumedJobs = [
    ...(await baselineJobs(units, cases)),
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

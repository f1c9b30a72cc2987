import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  type AudienceWeight,
  audienceWeightSchema,
  type Correctness,
  correctnessSchema,
  type DeckStats,
  deckStatsSchema,
  describeError,
  type Metrics,
  type MetricsSummary,
  metricsSchema,
  metricsSummarySchema,
  type Probe,
  type ProbeScore,
  probeSchema,
  probeScoreSchema,
  RunLayout,
  type RunManifest,
  readJson,
  readJsonlAll,
  runManifestSchema,
} from '@xsb/core';
import {
  DESIGN_FILE,
  type DesignRecord,
  designRecordSchema,
  REFERENCE_FILE,
  type ReferenceRecord,
  referenceRecordSchema,
} from '@xsb/design';
import {
  classifyProbeDomain,
  EVALUATION_FILES,
  joinIncludedProbes,
  MANIFEST_INPUT_ROLES,
  resolveManifestInput,
  SUMMARY_FILES,
} from '@xsb/metrics';
import { parseCitedSlides } from '../deck/cited-slides';

export interface ProbeView {
  probe: Probe;
  domain: string;
  weight: number | null;
  /** Stage 6's own join: weight ≥ tau_a. */
  included: boolean;
  score: ProbeScore | null;
  citedSlides: number[];
}

export interface EvaluationView {
  systemId: string;
  audience: string;
  caseLabel: string;
  metrics: Metrics | null;
  deckStats: DeckStats | null;
  manifest: RunManifest | null;
  correctness: Correctness | null;
  probes: ProbeView[];
  deckPath: string | null;
  deckSha256: string | null;
  /** `design.json` and `reference.json` of `xsb design`, when it ran. */
  design: DesignRecord | null;
  reference: ReferenceRecord | null;
  problems: string[];
}

export interface RunReportData {
  dataDir: string;
  run: string;
  summaryFile: string;
  summary: MetricsSummary;
  evaluations: EvaluationView[];
}

/** A file that cannot be read is a problem of its row: listed, and the report goes on. */
async function readOrProblem<T>(read: () => Promise<T>, problems: string[]): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    problems.push(describeError(error));
    return null;
  }
}

async function readOptional<T>(
  file: string,
  read: () => Promise<T>,
  problems: string[],
  required = true,
): Promise<T | null> {
  if (existsSync(file)) return readOrProblem(read, problems);
  if (required) problems.push(`${file}: missing`);
  return null;
}

function probeViews(
  audience: string,
  tauA: number,
  probes: Probe[],
  weights: AudienceWeight[],
  scores: ProbeScore[],
  slideCount: number,
): ProbeView[] {
  const { included } = joinIncludedProbes({ audience, probes, weights, scores, tauA });
  const includedIds = new Set(included.map((entry) => entry.probe.probe_id));
  const weightOf = new Map(
    weights.filter((row) => row.audience === audience).map((row) => [row.probe_id, row.utility_weight]),
  );
  const scoreOf = new Map<string, ProbeScore>();
  for (const score of scores) if (!scoreOf.has(score.probe_id)) scoreOf.set(score.probe_id, score);
  return probes.map((probe) => {
    const score = scoreOf.get(probe.probe_id) ?? null;
    return {
      probe,
      domain: classifyProbeDomain(probe),
      weight: weightOf.get(probe.probe_id) ?? null,
      included: includedIds.has(probe.probe_id),
      score,
      citedSlides: score ? parseCitedSlides(score.cited_evidence, slideCount) : [],
    };
  });
}

async function readEvaluation(
  row: MetricsSummary['rows'][number],
  summaryDir: string,
): Promise<EvaluationView> {
  const view: EvaluationView = {
    systemId: row.system_id,
    audience: row.audience,
    caseLabel: row.case_label,
    metrics: null,
    deckStats: null,
    manifest: null,
    correctness: null,
    probes: [],
    deckPath: null,
    deckSha256: null,
    design: null,
    reference: null,
    problems: [],
  };
  const metricsFile = resolve(summaryDir, row.file);
  view.metrics = await readOptional(metricsFile, () => readJson(metricsFile, metricsSchema), view.problems);
  if (row.origin !== 'evaluation') {
    view.problems.push(`${metricsFile}: a compact metrics file (no evaluation folder to drill into)`);
    return view;
  }
  const dir = dirname(metricsFile);
  const problems = view.problems;
  const read = <T>(name: string, parse: (file: string) => Promise<T>, required = true) =>
    readOptional(join(dir, name), () => parse(join(dir, name)), problems, required);
  view.manifest = await read(EVALUATION_FILES.manifest, (f) => readJson(f, runManifestSchema));
  view.deckStats = await read(EVALUATION_FILES.deckStats, (f) => readJson(f, deckStatsSchema));
  view.correctness = await read(EVALUATION_FILES.correctness, (f) => readJson(f, correctnessSchema), false);
  view.design = await read(DESIGN_FILE, (f) => readJson(f, designRecordSchema), false);
  view.reference = await read(REFERENCE_FILE, (f) => readJson(f, referenceRecordSchema), false);
  const scores = (await read(EVALUATION_FILES.probeScores, (f) => readJsonlAll(f, probeScoreSchema))) ?? [];
  const manifest = view.manifest;
  if (!manifest) return view;
  const deckInput = manifest.inputs.find((input) => input.role === MANIFEST_INPUT_ROLES.deck);
  view.deckSha256 = deckInput?.sha256 ?? null;
  const input = <T>(role: string, parse: (file: string) => Promise<T>) =>
    readOrProblem(() => parse(resolveManifestInput(dir, manifest, role)), problems);
  view.deckPath = await input(MANIFEST_INPUT_ROLES.deck, async (f) => f);
  const probes = await input(MANIFEST_INPUT_ROLES.probes, (f) => readJsonlAll(f, probeSchema));
  const weights = await input(MANIFEST_INPUT_ROLES.weights, (f) => readJsonlAll(f, audienceWeightSchema));
  if (probes) {
    const tauA = view.metrics?.tau_a ?? 0.7;
    const slideCount = view.deckStats?.slide_count ?? Number.POSITIVE_INFINITY;
    view.probes = probeViews(row.audience, tauA, probes, weights ?? [], scores, slideCount);
  }
  return view;
}

/** `summary.json` must exist; any other missing or invalid file becomes a problem of its row. */
export async function readRunReportData(dataDir: string, run: string): Promise<RunReportData> {
  const summaryFile = join(new RunLayout(dataDir).summaryDir(run), SUMMARY_FILES.json);
  const summary = await readJson(summaryFile, metricsSummarySchema);
  const summaryDir = dirname(summaryFile);
  const evaluations: EvaluationView[] = [];
  for (const row of summary.rows) evaluations.push(await readEvaluation(row, summaryDir));
  return { dataDir, run, summaryFile, summary, evaluations };
}

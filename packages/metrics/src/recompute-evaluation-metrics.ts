import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AudienceWeight, JudgeDescriptor, Probe, ProbeScore, RunManifest } from '@xsb/core';
import { InputError } from '@xsb/core/basics';
import { type ComputedMetrics, computeMetrics } from './compute-metrics';
import { loadCoreRecords } from './core-records';
import { describeJudge, mergeJudges } from './describe-judges';
import { EVALUATION_FILES, MANIFEST_INPUT_ROLES, resolveManifestInput } from './evaluation-files';

export interface EvaluationInputs {
  audience: string;
  probes: Probe[];
  weights: AudienceWeight[];
  scores: ProbeScore[];
  slideCount: number;
  visibleWordCount: number;
  correctness: number | null;
  /** Why correctness.json scored no correctness (its `null_reason`), when it says. */
  correctnessNullReason?: string;
  /** Identity fields the evaluation recorded (system, condition, case_label, judge …). */
  identity: Record<string, unknown>;
  /** The judges behind the row: probe generator, utility judge, answerability and correctness judges. */
  judges: JudgeDescriptor[];
}

/** The manifest field where stage 5 records the model label of each replay store it names. */
export const MANIFEST_MODEL_LABELS = 'judge_model_labels';

function stringValues(values: Iterable<unknown>): string[] {
  return [
    ...new Set([...values].filter((value): value is string => typeof value === 'string' && value !== '')),
  ];
}

/**
 * The judges recorded by the files of one evaluation: the run manifest's `judges` (answerability,
 * correctness), the generator of the probes (`metadata.generator`) and the judge of the weights
 * (`metadata.judge`); model labels of replay stores from the manifest's `judge_model_labels`.
 */
function recordedJudges(manifest: RunManifest, probes: readonly Probe[], weights: readonly AudienceWeight[]) {
  const labelsField = (manifest as Record<string, unknown>)[MANIFEST_MODEL_LABELS];
  const labels =
    typeof labelsField === 'object' && labelsField !== null
      ? Object.fromEntries(
          Object.entries(labelsField).filter(
            (entry): entry is [string, string] => typeof entry[1] === 'string',
          ),
        )
      : {};
  const judged: Array<[string, string[]]> = [
    ['probes', stringValues(probes.map((probe) => probe.metadata.generator))],
    ['weights', stringValues(weights.map((row) => row.metadata.judge))],
    ...Object.entries(manifest.judges).map(([stage, id]): [string, string[]] => [stage, [id]]),
  ];
  return mergeJudges([judged.flatMap(([stage, ids]) => ids.map((id) => describeJudge(stage, id, labels)))]);
}

/**
 * A manifest input read back for stage 6, refused when its bytes changed since the evaluation
 * (re-generated probes would be joined with scores judged for other probes).
 */
async function manifestInput(evaluationDir: string, manifest: RunManifest, role: string): Promise<string> {
  const { hashFile } = await loadCoreRecords();
  const file = resolveManifestInput(evaluationDir, manifest, role);
  const recorded = manifest.inputs.find((entry) => entry.role === role)?.sha256;
  if (recorded !== undefined && (await hashFile(file)) !== recorded)
    throw new InputError(
      `changed since this evaluation (run_manifest.json records another sha256); evaluate the deck again (current scores are reused)`,
      { file, remedy: { step: 'eval' } },
    );
  return file;
}

/**
 * Reads what stage 6 joins for one evaluation folder, through the paths its run manifest records;
 * a probe or weight file that changed since the evaluation is an InputError.
 */
export async function readEvaluationInputs(evaluationDir: string): Promise<EvaluationInputs> {
  const {
    audienceWeightSchema,
    correctnessSchema,
    deckStatsSchema,
    probeSchema,
    probeScoreSchema,
    readJson,
    readJsonlAll,
    runManifestSchema,
  } = await loadCoreRecords();
  const manifestFile = join(evaluationDir, EVALUATION_FILES.manifest);
  const manifest = await readJson(manifestFile, runManifestSchema);
  const identity = (manifest.settings.job ?? {}) as Record<string, unknown>;
  const audience = identity.audience;
  if (typeof audience !== 'string')
    throw new InputError('run manifest has no settings.job.audience', { file: manifestFile });
  const deckStats = await readJson(join(evaluationDir, EVALUATION_FILES.deckStats), deckStatsSchema);
  const correctnessFile = join(evaluationDir, EVALUATION_FILES.correctness);
  const correctnessRecord = existsSync(correctnessFile)
    ? await readJson(correctnessFile, correctnessSchema)
    : undefined;
  const correctness = correctnessRecord?.correctness ?? null;
  const probes = await readJsonlAll(
    await manifestInput(evaluationDir, manifest, MANIFEST_INPUT_ROLES.probes),
    probeSchema,
  );
  const weights = await readJsonlAll(
    await manifestInput(evaluationDir, manifest, MANIFEST_INPUT_ROLES.weights),
    audienceWeightSchema,
  );
  return {
    audience,
    probes,
    weights,
    judges: recordedJudges(
      manifest,
      probes,
      weights.filter((row) => row.audience === audience),
    ),
    scores: await readJsonlAll(join(evaluationDir, EVALUATION_FILES.probeScores), probeScoreSchema),
    slideCount: deckStats.slide_count,
    visibleWordCount: deckStats.visible_word_count,
    correctness,
    ...(correctnessRecord?.null_reason ? { correctnessNullReason: correctnessRecord.null_reason } : {}),
    identity,
  };
}

/** Stage 6 from the files of one evaluation folder: no judge is involved, only the join. */
export async function recomputeEvaluationMetrics(
  evaluationDir: string,
  options: { tauA?: number } = {},
): Promise<{ metrics: ComputedMetrics; inputs: EvaluationInputs }> {
  const inputs = await readEvaluationInputs(evaluationDir);
  const metrics = computeMetrics({
    ...inputs,
    ...(options.tauA === undefined ? {} : { tauA: options.tauA }),
  });
  return { metrics, inputs };
}

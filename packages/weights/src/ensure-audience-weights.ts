import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AudienceWeight,
  audienceWeightSchema,
  ConfigError,
  describeError,
  executeWorkList,
  hashCanonicalJson,
  mapWithConcurrency,
  type Probe,
  plural,
  probeSchema,
  type RunLayout,
  readJsonlAll,
  type StageEventListener,
  stopsTheRun,
  type UnitContext,
  type UnitOutcome,
  writeJsonlAtomic,
} from '@xsb/core';
import { type WeightFailure, weightFailureSchema } from './schemas/weight-failure';
import { HIGH_VARIANCE_STD, meanAndStd, snapUtility } from './snap-utility';
import type { UtilityJudge, UtilityJudgment } from './utility-judge';
import {
  type PairWeightsInput,
  WEIGHT_DEFAULTS,
  type WeightsSettings,
  type WeightsUnit,
  weightsWorkList,
} from './weights-work-list';

export interface AudienceWeightsOptions extends Omit<WeightsSettings, 'weightsFile' | 'judge'> {
  judge: UtilityJudge;
  /** Judge calls at once. Default 4. */
  concurrency?: number;
  /** Where the weights go instead of `weights/<audience>.jsonl` (e.g. {@link weightsFileForK}). */
  file?: string;
  onEvent?: StageEventListener;
}

export interface AudienceWeightsResult {
  caseLabel: string;
  audience: string;
  /** `failed`: some or all probes have no weight (see `failures` and the failures file). */
  status: 'complete' | 'skipped' | 'failed';
  weightsFile: string;
  failuresFile: string;
  rows: number;
  failures: number;
  highVariance: number;
  error?: string;
}

/** `weights/<audience>.jsonl` for the default k, else `weights@k<k>/…`: another k never replaces the default weights. */
export function weightsFileForK(layout: RunLayout, caseLabel: string, audience: string, k: number): string {
  const file = layout.weightsFile(caseLabel, audience);
  if (k === WEIGHT_DEFAULTS.k) return file;
  if (!Number.isInteger(k) || k < 1) throw new ConfigError(`k must be a positive integer, got ${k}`);
  return join(`${layout.weightsDir(caseLabel)}@k${k}`, `${audience}.jsonl`);
}

/** Stage 3 for one case and audience, and what later stages call to get weights they lack (README: Algorithm). */
export async function ensureAudienceWeights(
  layout: RunLayout,
  caseLabel: string,
  audience: string,
  options: AudienceWeightsOptions,
): Promise<AudienceWeightsResult> {
  const { file } = options;
  const units = await weightsWorkList(layout, [{ caseLabel, audience }], {
    ...options,
    ...(file ? { weightsFile: () => file } : {}),
  });
  const [outcome] = await runWeightsUnits(units, options, 1);
  return resultOf(outcome!);
}

/** Runs weight units (pairs at once: `pairConcurrency`; calls of a pair at once: `options.concurrency`, default 4). */
export function runWeightsUnits(
  units: readonly WeightsUnit[],
  options: Pick<AudienceWeightsOptions, 'judge' | 'concurrency' | 'onEvent'>,
  pairConcurrency: number,
): Promise<Array<UnitOutcome<WeightsUnit, AudienceWeightsResult>>> {
  return executeWorkList(units, {
    run: (unit, context) => runWeightsUnit(unit, options.judge, options.concurrency ?? 4, context),
    concurrency: pairConcurrency,
    unitName: 'case-audience pairs',
    stopsStage: stopsTheRun,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  });
}

/** The result row of a unit: a unit whose bank could not be read failed with its error. */
export function resultOf(outcome: UnitOutcome<WeightsUnit, AudienceWeightsResult>): AudienceWeightsResult {
  if (outcome.result) return outcome.result;
  const { caseLabel, audience, weightsFile, failuresFile } = outcome.unit.input;
  const counts = { rows: 0, failures: 0, highVariance: 0 };
  const error = describeError(outcome.error);
  return { caseLabel, audience, status: 'failed', weightsFile, failuresFile, ...counts, error };
}

async function runWeightsUnit(
  unit: WeightsUnit,
  judge: UtilityJudge,
  concurrency: number,
  context: UnitContext,
): Promise<AudienceWeightsResult> {
  const input = unit.input;
  const { caseLabel, audience, weightsFile, failuresFile, bank } = input;
  const base = { caseLabel, audience, weightsFile, failuresFile };
  if (bank instanceof Error) throw bank;
  if (unit.decision.kind === 'reuse') {
    const rows = await readJsonlAll(weightsFile, audienceWeightSchema);
    const highVariance = rows.filter((row) => row.metadata.high_variance === true).length;
    return { ...base, status: 'skipped', rows: rows.length, failures: 0, highVariance };
  }
  const judged = await judgeBatches(input, judge, concurrency, context);
  const { rows, failures } = weightRows({ ...input, bank }, judge.id, judged);
  const highVariance = rows.filter((row) => row.metadata.high_variance === true).length;
  if (failures.length > 0) {
    // A weights file means "every probe weighted": a partial one would let later stages (which only
    // check that the file exists) measure decks against a silently shrunken denominator.
    await rm(weightsFile, { force: true });
    await writeJsonlAtomic(failuresFile, weightFailureSchema, failures);
    return {
      ...base,
      status: 'failed',
      rows: rows.length,
      failures: failures.length,
      highVariance,
      error: `${failures.length} of ${bank.length} probes have no weight (see ${failuresFile}); no weights file written`,
    };
  }
  await writeJsonlAtomic(weightsFile, audienceWeightSchema, rows);
  await rm(failuresFile, { force: true });
  return { ...base, status: 'complete', rows: rows.length, failures: 0, highVariance };
}

/** Each probe's k samples (undefined where a sample has no judgment) and why samples are missing. */
export interface JudgedSamples {
  samples: Map<string, Array<UtilityJudgment | undefined>>;
  reasons: Map<string, string[]>;
}

/**
 * Asks the judge every batch and sample. A batch that fails leaves its probes without that sample
 * (with the reason); an error that would fail every batch alike (a missing key, a refused login)
 * stops the pair and is thrown.
 */
async function judgeBatches(
  input: PairWeightsInput,
  judge: UtilityJudge,
  concurrency: number,
  context: UnitContext,
): Promise<JudgedSamples> {
  const samples: JudgedSamples['samples'] = new Map();
  const reasons: JudgedSamples['reasons'] = new Map();
  const because = (probeId: string, reason: string) =>
    reasons.set(probeId, [...(reasons.get(probeId) ?? []), reason]);
  await mapWithConcurrency(input.batches, concurrency, async ({ probes, sampleIndex }) => {
    try {
      const batch = { audience: input.profile, probes, sampleIndex, k: input.k };
      const output = await judge.judgeBatch(batch, context.callMade);
      for (const probe of probes) {
        const judgment = output.judgments.get(probe.probe_id);
        if (!samples.has(probe.probe_id)) samples.set(probe.probe_id, []);
        samples.get(probe.probe_id)![sampleIndex] = judgment;
        if (!judgment)
          because(
            probe.probe_id,
            output.failures.get(probe.probe_id) ?? `sample ${sampleIndex}: no judgment`,
          );
      }
    } catch (error) {
      if (stopsTheRun(error)) throw error;
      for (const probe of probes) because(probe.probe_id, `sample ${sampleIndex}: ${describeError(error)}`);
    }
  });
  return { samples, reasons };
}

/**
 * The weight rows of a bank from its judged samples: a probe with all k samples valid gets the mean
 * of its snapped values (population std, flagged above {@link HIGH_VARIANCE_STD}); any other is a
 * failure naming its missing samples and why, never a weight of 0.
 */
export function weightRows(
  input: Pick<PairWeightsInput, 'audience' | 'k' | 'identity'> & { bank: readonly Probe[] },
  judgeId: string,
  { samples, reasons }: JudgedSamples,
): { rows: AudienceWeight[]; failures: WeightFailure[] } {
  const rows: AudienceWeight[] = [];
  const failures: WeightFailure[] = [];
  for (const probe of input.bank) {
    const judged = samples.get(probe.probe_id) ?? [];
    const sampleIndexes = Array.from({ length: input.k }, (_, index) => index);
    const failedSamples = sampleIndexes.filter((index) => !judged[index]);
    const snapped = sampleIndexes.map((index) => {
      const judgment = judged[index];
      return judgment ? snapUtility(judgment.value) : undefined;
    });
    if (failedSamples.length > 0 || snapped.some((value) => value === undefined)) {
      failures.push({
        probe_id: probe.probe_id,
        audience: input.audience,
        judge: judgeId,
        failed_samples: failedSamples,
        reason: (reasons.get(probe.probe_id) ?? ['invalid utility value']).join('; '),
      });
      continue;
    }
    const values = snapped as number[];
    const { mean, std } = meanAndStd(values);
    rows.push({
      probe_id: probe.probe_id,
      audience: input.audience,
      utility_weight: mean,
      reason: judged[0]!.rationale,
      metadata: {
        ...input.identity(probe),
        raw_values: judged.map((judgment) => judgment!.value),
        snapped_values: values,
        rationales: judged.map((judgment) => judgment!.rationale),
        std,
        std_kind: 'population',
        high_variance: std > HIGH_VARIANCE_STD,
      },
    });
  }
  return { rows, failures };
}

/** Why a weights file (of any judge) does not weight exactly the case's current bank, or null when it does. */
export async function findWeightsBankMismatch(
  layout: RunLayout,
  caseLabel: string,
  audience: string,
  weightsFile = layout.weightsFile(caseLabel, audience),
): Promise<string | null> {
  const bank = await readJsonlAll(layout.probesFile(caseLabel), probeSchema);
  const rows = await readJsonlAll(weightsFile, audienceWeightSchema);
  if (rows.length !== bank.length) {
    return `it weights ${plural(rows.length, 'probe')} but the bank has ${bank.length}`;
  }
  for (const [index, row] of rows.entries()) {
    const probe = bank[index]!;
    if (row.probe_id !== probe.probe_id) {
      return `line ${index + 1} weights ${row.probe_id} where the bank has ${probe.probe_id}`;
    }
    const recorded = row.metadata.probe_sha256;
    if (typeof recorded === 'string' && recorded !== hashCanonicalJson(probe)) {
      return `probe ${probe.probe_id} changed since it was weighted`;
    }
  }
  return null;
}

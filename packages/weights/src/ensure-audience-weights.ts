import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AudienceProfile,
  type AudienceWeight,
  audienceWeightSchema,
  ConfigError,
  describeError,
  exitCodeFor,
  hashCanonicalJson,
  InputError,
  mapWithConcurrency,
  type Probe,
  type ProgressReporter,
  plural,
  probeSchema,
  type RunLayout,
  readJsonlAll,
  type WeightFailure,
  weightFailureSchema,
  writeJsonlAtomic,
} from '@xsb/core';
import { BUILT_IN_AUDIENCES } from './audience-profiles';
import { HIGH_VARIANCE_STD, meanAndStd, snapUtility } from './snap-utility';
import type { UtilityJudge, UtilityJudgment } from './utility-judge';

/** k = 3 judgments per probe–audience pair and batches of 12 (spec 000). */
export const WEIGHT_DEFAULTS = { k: 3, batchSize: 12 } as const;

/** Bumped when a change here would change weight rows made from the same judgments. */
const WEIGHTS_FORMAT = 1;

export interface AudienceWeightsOptions {
  judge: UtilityJudge;
  /** Known audience profiles; default the built-in ones. */
  profiles?: ReadonlyMap<string, AudienceProfile>;
  k?: number;
  batchSize?: number;
  /** Redo even when a finished weights file matches the bank, profile, judge and k. */
  force?: boolean;
  /** Judge calls at once. Default 4. */
  concurrency?: number;
  /**
   * Where the weights go instead of `weights/<audience>.jsonl` (e.g. {@link weightsFileForK} for
   * another k); the failures file sits beside it.
   */
  file?: string;
  /**
   * Ticks once per judge call (a batch for one of the k samples). The caller owns the total:
   * {@link plannedWeightCalls} says how many calls a pair will make.
   */
  progress?: ProgressReporter;
  progressNote?: string;
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

/** `weights/<audience>.failures.jsonl`, beside the weights file (or beside `file` when given). */
export function weightFailuresFile(
  layout: RunLayout,
  caseLabel: string,
  audience: string,
  file = layout.weightsFile(caseLabel, audience),
): string {
  return file.replace(/\.jsonl$/, '.failures.jsonl');
}

/**
 * The weights file of k samples per probe: `weights/<audience>.jsonl` for the default k (3), else
 * `weights@k<k>/<audience>.jsonl`, so weights of another k never replace the default ones and
 * both can be compared (the bench's `weight_k` factor).
 */
export function weightsFileForK(layout: RunLayout, caseLabel: string, audience: string, k: number): string {
  const file = layout.weightsFile(caseLabel, audience);
  if (k === WEIGHT_DEFAULTS.k) return file;
  if (!Number.isInteger(k) || k < 1) throw new ConfigError(`k must be a positive integer, got ${k}`);
  return join(`${layout.weightsDir(caseLabel)}@k${k}`, `${audience}.jsonl`);
}

/**
 * Stage 3 for one case and audience, and what later stages call to get weights they lack: reads the
 * probe bank, judges it in batches (`batchSize`, default 12) k times (default 3), snaps every raw value,
 * and writes `probes/<case>/weights/<audience>.jsonl` with the mean of the snapped values per probe.
 * A probe needs all k samples; one without them is written to `<audience>.failures.jsonl`, and then no
 * weights file is written at all (a stale one is removed), so a weights file always covers the whole
 * bank. A finished file (no failures file, the same probe ids in bank order, every row made by this
 * judge, k, probe content and profile) is left alone unless `force`.
 */
export async function ensureAudienceWeights(
  layout: RunLayout,
  caseLabel: string,
  audience: string,
  options: AudienceWeightsOptions,
): Promise<AudienceWeightsResult> {
  const prepared = await prepareAudienceWeights(layout, caseLabel, audience, options);
  const { result, profile, k, batchSize, identity } = prepared;
  if (prepared.bank instanceof Error)
    return { ...result, status: 'failed', error: describeError(prepared.bank) };
  const bank = prepared.bank;
  const { weightsFile, failuresFile } = result;

  if (prepared.finished) {
    const rows = await readJsonlAll(weightsFile, audienceWeightSchema);
    return {
      ...result,
      status: 'skipped',
      rows: rows.length,
      highVariance: rows.filter((row) => row.metadata.high_variance === true).length,
    };
  }

  const samples = new Map<string, Array<UtilityJudgment | undefined>>(
    bank.map((probe) => [probe.probe_id, []]),
  );
  const reasons = new Map<string, string[]>();
  const jobs: Array<{ probes: Probe[]; sampleIndex: number }> = [];
  for (let start = 0; start < bank.length; start += batchSize) {
    for (let sampleIndex = 0; sampleIndex < k; sampleIndex += 1) {
      jobs.push({ probes: bank.slice(start, start + batchSize), sampleIndex });
    }
  }
  await mapWithConcurrency(jobs, options.concurrency ?? 4, async ({ probes, sampleIndex }) => {
    try {
      const output = await options.judge
        .judgeBatch({ audience: profile, probes, sampleIndex, k })
        .finally(() => options.progress?.tick(1, options.progressNote));
      for (const probe of probes) {
        const judgment = output.judgments.get(probe.probe_id);
        samples.get(probe.probe_id)![sampleIndex] = judgment;
        if (!judgment) {
          const reason = output.failures.get(probe.probe_id) ?? `sample ${sampleIndex}: no judgment`;
          reasons.set(probe.probe_id, [...(reasons.get(probe.probe_id) ?? []), reason]);
        }
      }
    } catch (error) {
      // A missing key or a refused login would fail every batch the same way: stop the run (exit 2).
      if (exitCodeFor(error) === 2) throw error;
      for (const probe of probes) {
        reasons.set(probe.probe_id, [
          ...(reasons.get(probe.probe_id) ?? []),
          `sample ${sampleIndex}: ${describeError(error)}`,
        ]);
      }
    }
  });

  const rows: AudienceWeight[] = [];
  const failures: WeightFailure[] = [];
  for (const probe of bank) {
    const judged = samples.get(probe.probe_id)!;
    const failedSamples = Array.from({ length: k }, (_, index) => index).filter((index) => !judged[index]);
    const snapped = judged.map((judgment) => (judgment ? snapUtility(judgment.value) : undefined));
    if (failedSamples.length > 0 || snapped.some((value) => value === undefined)) {
      failures.push({
        probe_id: probe.probe_id,
        audience,
        judge: options.judge.id,
        failed_samples: failedSamples,
        reason: (reasons.get(probe.probe_id) ?? ['invalid utility value']).join('; '),
      });
      continue;
    }
    const values = snapped as number[];
    const { mean, std } = meanAndStd(values);
    const highVariance = std > HIGH_VARIANCE_STD;
    rows.push({
      probe_id: probe.probe_id,
      audience,
      utility_weight: mean,
      reason: judged[0]!.rationale,
      metadata: {
        ...identity(probe),
        raw_values: judged.map((judgment) => judgment!.value),
        snapped_values: values,
        rationales: judged.map((judgment) => judgment!.rationale),
        std,
        std_kind: 'population',
        high_variance: highVariance,
      },
    });
  }

  const highVariance = rows.filter((row) => row.metadata.high_variance === true).length;
  if (failures.length > 0) {
    // A weights file means "every probe weighted": a partial one would let later stages (which only
    // check that the file exists) measure decks against a silently shrunken denominator.
    await rm(weightsFile, { force: true });
    await writeJsonlAtomic(failuresFile, weightFailureSchema, failures);
    return {
      ...result,
      status: 'failed',
      rows: rows.length,
      failures: failures.length,
      highVariance,
      error: `${failures.length} of ${bank.length} probes have no weight (see ${failuresFile}); no weights file written`,
    };
  }
  await writeJsonlAtomic(weightsFile, audienceWeightSchema, rows);
  await rm(failuresFile, { force: true });
  return { ...result, status: 'complete', rows: rows.length, failures: 0, highVariance };
}

interface PreparedWeights {
  result: AudienceWeightsResult;
  profile: AudienceProfile;
  k: number;
  batchSize: number;
  /** The probe bank, or why it cannot be read (the pair fails). */
  bank: Probe[] | Error;
  identity: (probe: Probe) => Record<string, unknown>;
  /** A weights file matching the bank, profile, judge and k exists (and `force` is off). */
  finished: boolean;
}

async function prepareAudienceWeights(
  layout: RunLayout,
  caseLabel: string,
  audience: string,
  options: AudienceWeightsOptions,
): Promise<PreparedWeights> {
  const profiles = options.profiles ?? new Map(BUILT_IN_AUDIENCES.map((profile) => [profile.id, profile]));
  const profile = profiles.get(audience);
  if (!profile) {
    throw new ConfigError(
      `unknown audience "${audience}": known are ${[...profiles.keys()].join(', ')} (add profiles with a file)`,
    );
  }
  const k = options.k ?? WEIGHT_DEFAULTS.k;
  const batchSize = options.batchSize ?? WEIGHT_DEFAULTS.batchSize;
  if (!Number.isInteger(k) || k < 1) throw new ConfigError(`k must be a positive integer, got ${k}`);
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new ConfigError(`batch size must be a positive integer, got ${batchSize}`);
  const weightsFile = options.file ?? layout.weightsFile(caseLabel, audience);
  const failuresFile = weightFailuresFile(layout, caseLabel, audience, weightsFile);
  const result: AudienceWeightsResult = {
    caseLabel,
    audience,
    status: 'complete',
    weightsFile,
    failuresFile,
    rows: 0,
    failures: 0,
    highVariance: 0,
  };
  const audienceSha = hashCanonicalJson(profile);
  const identity = (probe: Probe) => ({
    weights_format: WEIGHTS_FORMAT,
    judge: options.judge.id,
    judge_fingerprint: options.judge.fingerprint,
    k,
    probe_sha256: hashCanonicalJson(probe),
    audience_sha256: audienceSha,
  });
  let bank: Probe[] | Error;
  try {
    const probesFile = layout.probesFile(caseLabel);
    if (!existsSync(probesFile)) {
      throw new InputError('no probe bank (run `xsb probes` for this case first)', { file: probesFile });
    }
    bank = await readJsonlAll(probesFile, probeSchema);
  } catch (error) {
    bank = error instanceof Error ? error : new Error(String(error));
  }
  const finished =
    !(bank instanceof Error) &&
    !options.force &&
    (await isFinished(weightsFile, failuresFile, bank, identity));
  return { result, profile, k, batchSize, bank, identity, finished };
}

/**
 * The judge calls {@link ensureAudienceWeights} will make for a pair with these options: one per
 * batch and sample (`ceil(bank / batchSize) × k`), 0 when the weights are finished or the bank
 * cannot be read. Progress totals are set from it before any call.
 */
export async function plannedWeightCalls(
  layout: RunLayout,
  caseLabel: string,
  audience: string,
  options: AudienceWeightsOptions,
): Promise<number> {
  const { bank, finished, k, batchSize } = await prepareAudienceWeights(layout, caseLabel, audience, options);
  if (bank instanceof Error || finished) return 0;
  return Math.ceil(bank.length / batchSize) * k;
}

/**
 * Why an existing weights file does not fit the case's current probe bank (other probe ids, another
 * order, or a probe whose content changed since it was weighted), or null when it fits. Judge-neutral:
 * weights made by any judge pass as long as they weight exactly this bank. Later stages call it before
 * trusting a weights file they did not make.
 */
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

async function isFinished(
  weightsFile: string,
  failuresFile: string,
  bank: readonly Probe[],
  identity: (probe: Probe) => Record<string, unknown>,
): Promise<boolean> {
  if (!existsSync(weightsFile) || existsSync(failuresFile)) return false;
  try {
    const rows = await readJsonlAll(weightsFile, audienceWeightSchema);
    if (rows.length !== bank.length) return false;
    return rows.every((row, index) => {
      const probe = bank[index]!;
      if (row.probe_id !== probe.probe_id) return false;
      return Object.entries(identity(probe)).every(([key, value]) => row.metadata[key] === value);
    });
  } catch {
    // An unreadable weights file is not finished: it is rewritten.
    return false;
  }
}

/** Stage 3 as a work list (docs/architecture.md): one unit per case × audience, run by weighRun, priced by xsb plan. */
import { existsSync } from 'node:fs';
import {
  audienceWeightSchema,
  ConfigError,
  hashCanonicalJson,
  InputError,
  type Probe,
  probeSchema,
  type RunLayout,
  readJsonlAll,
  type WorkDecision,
  type WorkUnit,
} from '@xsb/core';
import type { CompletionRequest } from '@xsb/llm';
import { BUILT_IN_AUDIENCES } from './audience-profiles';
import type { AudienceProfile } from './schemas/audience-profile';
import type { UtilityJudge } from './utility-judge';

export const WEIGHTS_STAGE = 'weights';

/** k = 3 judgments per probe–audience pair and batches of 12 (spec 000). */
export const WEIGHT_DEFAULTS = { k: 3, batchSize: 12 } as const;

/** A typical answer per probe of a batch (`{"probe_id", "utility", "rationale"}`): what a plan charges. */
export const UTILITY_OUTPUT_TOKENS_PER_PROBE = 35;

/** Bumped when a change here would change weight rows made from the same judgments. */
const WEIGHTS_FORMAT = 1;

export interface WeightsSettings {
  judge: Pick<UtilityJudge, 'id' | 'fingerprint' | 'requestFor'>;
  /** Known audience profiles; default the built-in ones. */
  profiles?: ReadonlyMap<string, AudienceProfile>;
  k?: number;
  batchSize?: number;
  /** Redo even when a finished weights file matches the bank, profile, judge and k. */
  force?: boolean;
  /** The weights file of a pair when not `weights/<audience>.jsonl` (e.g. {@link weightsFileForK}). */
  weightsFile?: (caseLabel: string, audience: string) => string;
  /**
   * Banks an earlier step of the same run will make (a plan's stand-ins), by case, instead of the
   * file on disk: such a pair is never reused.
   */
  banks?: ReadonlyMap<string, Probe[]>;
}

export interface PairWeightsInput {
  caseLabel: string;
  audience: string;
  profile: AudienceProfile;
  k: number;
  weightsFile: string;
  failuresFile: string;
  /** The probe bank, or why it cannot be read (the pair fails without a call). */
  bank: Probe[] | Error;
  /** Each judge call: a batch of the bank and its sample index, in sending order. */
  batches: Array<{ probes: Probe[]; sampleIndex: number }>;
  /** What every weight row records so a later run can tell it is still current. */
  identity: (probe: Probe) => Record<string, unknown>;
}

export type WeightsUnit = WorkUnit<CompletionRequest, PairWeightsInput>;

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
 * The work of stage 3 over `pairs`, in their order: reads each bank and finished weights file, makes
 * no judge call. An audience without a profile is a ConfigError; k and batch size must be positive.
 */
export async function weightsWorkList(
  layout: RunLayout,
  pairs: ReadonlyArray<{ caseLabel: string; audience: string }>,
  settings: WeightsSettings,
): Promise<WeightsUnit[]> {
  const profiles = settings.profiles ?? new Map(BUILT_IN_AUDIENCES.map((profile) => [profile.id, profile]));
  const k = settings.k ?? WEIGHT_DEFAULTS.k;
  const batchSize = settings.batchSize ?? WEIGHT_DEFAULTS.batchSize;
  if (!Number.isInteger(k) || k < 1) throw new ConfigError(`k must be a positive integer, got ${k}`);
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new ConfigError(`batch size must be a positive integer, got ${batchSize}`);
  const banks = new Map<string, Probe[] | Error>();
  const units: WeightsUnit[] = [];
  for (const { caseLabel, audience } of pairs) {
    const profile = profiles.get(audience);
    if (!profile)
      throw new ConfigError(
        `unknown audience "${audience}": known are ${[...profiles.keys()].join(', ')} (add profiles with a file)`,
      );
    const standIn = settings.banks?.get(caseLabel);
    if (!banks.has(caseLabel)) banks.set(caseLabel, standIn ?? (await readBank(layout, caseLabel)));
    const weightsFile =
      settings.weightsFile?.(caseLabel, audience) ?? layout.weightsFile(caseLabel, audience);
    const input = pairInput(caseLabel, profile, k, batchSize, banks.get(caseLabel)!, settings.judge);
    const pair = {
      ...input,
      weightsFile,
      failuresFile: weightFailuresFile(layout, caseLabel, audience, weightsFile),
    };
    const reusable = !settings.force && standIn === undefined && (await isFinished(pair));
    units.push({
      stage: WEIGHTS_STAGE,
      id: `${caseLabel}/${audience}`,
      reads: [layout.probesFile(caseLabel)],
      reuseKey: pair.bank instanceof Error ? '' : hashCanonicalJson(pair.bank.map(pair.identity)),
      decision: reusable ? { kind: 'reuse', artifact: weightsFile } : weightsDecision(pair, settings.judge),
      input: pair,
    });
  }
  return units;
}

function pairInput(
  caseLabel: string,
  profile: AudienceProfile,
  k: number,
  batchSize: number,
  bank: Probe[] | Error,
  judge: Pick<UtilityJudge, 'id' | 'fingerprint'>,
): Omit<PairWeightsInput, 'weightsFile' | 'failuresFile'> {
  const batches: PairWeightsInput['batches'] = [];
  const probes = bank instanceof Error ? [] : bank;
  for (let start = 0; start < probes.length; start += batchSize)
    for (let sampleIndex = 0; sampleIndex < k; sampleIndex += 1)
      batches.push({ probes: probes.slice(start, start + batchSize), sampleIndex });
  const audienceSha = hashCanonicalJson(profile);
  const identity = (probe: Probe) => ({
    weights_format: WEIGHTS_FORMAT,
    judge: judge.id,
    judge_fingerprint: judge.fingerprint,
    k,
    probe_sha256: hashCanonicalJson(probe),
    audience_sha256: audienceSha,
  });
  return { caseLabel, audience: profile.id, profile, k, bank, batches, identity };
}

/** The judge's first request of each batch and sample, or its rule when it calls no model. */
function weightsDecision(
  pair: PairWeightsInput,
  judge: Pick<UtilityJudge, 'id' | 'requestFor'>,
): WorkDecision<CompletionRequest> {
  if (pair.bank instanceof Error) return { kind: 'rule', rule: 'unreadable probe bank: the pair fails' };
  if (!judge.requestFor) return { kind: 'rule', rule: `${judge.id} utility` };
  const requests = pair.batches.map(({ probes, sampleIndex }) =>
    judge.requestFor!({ audience: pair.profile, probes, sampleIndex, k: pair.k }),
  );
  // One estimate per request: the bank's answer tokens spread over the batches of a sample.
  const perBatch =
    (UTILITY_OUTPUT_TOKENS_PER_PROBE * pair.bank.length * pair.k) / Math.max(1, requests.length);
  const outputTokens = Math.round(Math.min(perBatch, requests[0]?.maxTokens ?? Infinity));
  return { kind: 'call', requests, outputTokens };
}

async function readBank(layout: RunLayout, caseLabel: string): Promise<Probe[] | Error> {
  const probesFile = layout.probesFile(caseLabel);
  try {
    if (!existsSync(probesFile))
      throw new InputError('no probe bank (generate the probes of this case first)', {
        file: probesFile,
        code: 'missing_probe_bank',
        remedy: { step: 'probes', caseLabel, dataDir: layout.dataDir },
      });
    return await readJsonlAll(probesFile, probeSchema);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** A finished file: no failures file, the bank's probe ids in order, each row made by this judge, k, probe and profile. */
async function isFinished(pair: PairWeightsInput): Promise<boolean> {
  const { weightsFile, failuresFile, bank, identity } = pair;
  if (bank instanceof Error || !existsSync(weightsFile) || existsSync(failuresFile)) return false;
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

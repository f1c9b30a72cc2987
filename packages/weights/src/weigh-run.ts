import { compareCodePoints, type RunLayout } from '@xsb/core';
import { BUILT_IN_AUDIENCES } from './audience-profiles';
import {
  type AudienceWeightsOptions,
  type AudienceWeightsResult,
  resultOf,
  runWeightsUnits,
} from './ensure-audience-weights';
import { requireProbeBanks } from './require-probe-banks';
import { weightsWorkList } from './weights-work-list';

/** One row per case × audience; `not_applicable`: the case does not list the audience (nothing written). */
export type WeightsRow = Omit<AudienceWeightsResult, 'status' | 'weightsFile' | 'failuresFile'> & {
  status: AudienceWeightsResult['status'] | 'not_applicable';
};

/** The cases of a run as `discoverSourceCases` finds them (`@xsb/sources`). */
export interface WeightedCases {
  cases: ReadonlyArray<{ caseId: string; metadata: { valid_audiences: readonly string[] } }>;
  failures: ReadonlyArray<{ caseId: string; error: { message: string } }>;
}

export interface WeighRunOptions extends Omit<AudienceWeightsOptions, 'file'> {
  /** Only these audiences (default: each case's `valid_audiences`). */
  audiences?: readonly string[];
  /** Pairs and the calls of each at once (default: pairs 1, calls 4); with `--batch` the batch capacity. */
  concurrency?: number;
}

/** Stage 3 over every case and audience (`xsb weights`), rows in case order. */
export async function weighRun(
  layout: RunLayout,
  discovered: WeightedCases,
  options: WeighRunOptions,
): Promise<WeightsRow[]> {
  const withoutBank = requireProbeBanks(
    layout,
    discovered.cases.map((sourceCase) => sourceCase.caseId),
  );
  const rows = [
    ...discovered.failures.map((failure) => emptyRow(failure.caseId, '-', 'failed', failure.error.message)),
    ...withoutBank.map((caseLabel) =>
      emptyRow(caseLabel, '-', 'failed', 'no probe bank (generate the probes of this case first)'),
    ),
  ];
  const profiles = options.profiles ?? new Map(BUILT_IN_AUDIENCES.map((profile) => [profile.id, profile]));
  const pairs: Array<{ caseLabel: string; audience: string }> = [];
  for (const sourceCase of discovered.cases) {
    if (withoutBank.includes(sourceCase.caseId)) continue;
    const valid = sourceCase.metadata.valid_audiences;
    const audiences = options.audiences && options.audiences.length > 0 ? options.audiences : valid;
    for (const audience of audiences) {
      if (!valid.includes(audience)) rows.push(emptyRow(sourceCase.caseId, audience, 'not_applicable', null));
      else if (!profiles.has(audience)) {
        const error = `no profile for audience "${audience}" (known: ${[...profiles.keys()].join(', ')}; pass a profile for it)`;
        rows.push(emptyRow(sourceCase.caseId, audience, 'failed', error));
      } else pairs.push({ caseLabel: sourceCase.caseId, audience });
    }
  }
  const units = await weightsWorkList(layout, pairs, { ...options, profiles });
  const outcomes = await runWeightsUnits(units, options, options.concurrency ?? 1);
  for (const outcome of outcomes) {
    const { weightsFile: _w, failuresFile: _f, ...row } = resultOf(outcome);
    rows.push(row);
  }
  return rows.sort((a, b) => compareCodePoints(a.caseLabel, b.caseLabel));
}

function emptyRow(
  caseLabel: string,
  audience: string,
  status: WeightsRow['status'],
  error: string | null,
): WeightsRow {
  return { caseLabel, audience, status, rows: 0, failures: 0, highVariance: 0, ...(error ? { error } : {}) };
}

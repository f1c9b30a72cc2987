import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import {
  type Condition,
  compareCodePoints,
  conditionSchema,
  InputError,
  isXsbError,
  type RunLayout,
  readJson,
  type XsbError,
} from '@xsb/core';
import { deckRowStatusSchema, findDeckFile } from '@xsb/decks';
import { type FilterableIdentity, filterAllows, matchesFilters, type RowFilters } from '@xsb/metrics';
import { loadSourceCase } from '@xsb/sources';

/**
 * Why a deck folder holds no deck: the failure its `deck_status.json` records (a generator's exit code
 * and stderr, a missing source) when the row failed, else that there is none.
 */
async function whyNoDeck(dir: string): Promise<string> {
  const status = await readJson(join(dir, 'deck_status.json'), deckRowStatusSchema).catch(() => undefined);
  if (status?.status === 'failed' && status.message !== '')
    return `deck generation failed: ${status.message}`;
  return 'no .pptx or .pdf deck in this folder';
}

/** A deck in the run's deck tree `decks/<system>/<condition>/<audience>/<case>/<deck>.pptx|pdf`. */
export interface DeckRow {
  system: string;
  condition: Condition;
  /** The folder audience: the target audience of a conditioned deck; a placeholder for an agnostic one. */
  deckAudience: string;
  caseLabel: string;
  deckFile: string;
}

/** One (deck, audience) evaluation. */
export interface EvaluationJob extends DeckRow {
  audience: string;
}

/** Where a job's artifacts live: `runs/<run>/evaluations/<system>/<condition>/<audience>/<case>/`. */
export function evaluationDirOf(layout: RunLayout, run: string, job: EvaluationJob): string {
  return layout.evaluationDir({
    run,
    system: job.system,
    condition: job.condition,
    audience: job.audience,
    caseLabel: job.caseLabel,
  });
}

/** `--system`, `--condition`, `--audience`, `--case`: the jobs to run (all when empty). */
export type JobFilters = RowFilters;

/** A job's identity in the shape filters are checked against. */
export const jobIdentity = (job: {
  system: string;
  condition: string;
  audience: string;
  caseLabel: string;
}): FilterableIdentity => ({
  system: job.system,
  condition: job.condition,
  audience: job.audience,
  case_label: job.caseLabel,
});

export interface DiscoveryFailure {
  where: string;
  error: XsbError;
}

/**
 * The identity a path inside the run's deck tree names (`<system>/<condition>/<audience>/<case>/…`),
 * null where the path stops short of a part. An agnostic deck's folder audience is no audience it is
 * evaluated for, so it is null too.
 */
export function deckFolderIdentity(layout: RunLayout, run: string, where: string): FilterableIdentity {
  const inside = relative(layout.decksRoot(run), where);
  const parts = inside.startsWith('..') || inside === '' ? [] : inside.split(sep);
  return {
    system: parts[0] ?? null,
    condition: parts[1] ?? null,
    audience: parts[1] === 'audience_conditioned' ? (parts[2] ?? null) : null,
    case_label: parts[3] ?? null,
  };
}

async function subfolders(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort(compareCodePoints);
}

/**
 * Every deck of a run, in sorted path order. A case folder must hold exactly one `.pptx` or `.pdf`;
 * none or several is a failure for that folder (the rest go on); a run without a deck folder is a
 * failure too (a mistyped run name must not look like a run with nothing to do).
 */
export async function discoverDeckRows(
  layout: RunLayout,
  run: string,
): Promise<{ rows: DeckRow[]; failures: DiscoveryFailure[] }> {
  const root = layout.decksRoot(run);
  const rows: DeckRow[] = [];
  const failures: DiscoveryFailure[] = [];
  if (!existsSync(root)) {
    failures.push({
      where: root,
      error: new InputError(`no deck folder for run "${run}" (generate or import decks first)`, {
        file: root,
      }),
    });
    return { rows, failures };
  }
  for (const system of await subfolders(root)) {
    for (const condition of await subfolders(join(root, system))) {
      const parsedCondition = conditionSchema.safeParse(condition);
      if (!parsedCondition.success) {
        failures.push({
          where: join(root, system, condition),
          error: new InputError(
            `unknown condition folder "${condition}" (expected ${conditionSchema.options.join(' or ')})`,
            {
              file: join(root, system, condition),
            },
          ),
        });
        continue;
      }
      for (const deckAudience of await subfolders(join(root, system, condition))) {
        for (const caseLabel of await subfolders(join(root, system, condition, deckAudience))) {
          const dir = join(root, system, condition, deckAudience, caseLabel);
          let deckFile: string | undefined;
          try {
            deckFile = await findDeckFile(dir);
          } catch (error) {
            const reason = isXsbError(error)
              ? error
              : new InputError(`cannot list the deck folder (${(error as Error).message})`, { file: dir });
            failures.push({ where: dir, error: reason });
            continue;
          }
          if (deckFile === undefined) {
            failures.push({ where: dir, error: new InputError(await whyNoDeck(dir), { file: dir }) });
            continue;
          }
          rows.push({
            system,
            condition: parsedCondition.data,
            deckAudience,
            caseLabel,
            deckFile,
          });
        }
      }
    }
  }
  return { rows, failures };
}

/**
 * Spec 000 job expansion: a conditioned deck is evaluated for its target audience; an agnostic deck
 * for every active audience of its case (the case's `valid_audiences`), each narrowed by the filters.
 * `known` is every job identity the run has without filters (and every deck folder's), so a filter
 * value that names nothing can be refused with the values that exist.
 */
export async function expandEvaluationJobs(
  layout: RunLayout,
  rows: readonly DeckRow[],
  filters: JobFilters = {},
): Promise<{ jobs: EvaluationJob[]; failures: DiscoveryFailure[]; known: FilterableIdentity[] }> {
  const jobs: EvaluationJob[] = [];
  const failures: DiscoveryFailure[] = [];
  const known: FilterableIdentity[] = [];
  const audiencesByCase = new Map<string, string[] | XsbError>();
  for (const row of rows) {
    let active = audiencesByCase.get(row.caseLabel);
    if (!active) {
      try {
        active = (await loadSourceCase(layout.dataDir, row.caseLabel)).metadata.valid_audiences;
      } catch (error) {
        if (!isXsbError(error)) throw error;
        active = error;
      }
      audiencesByCase.set(row.caseLabel, active);
    }
    const rowSelected =
      filterAllows(filters.systems, row.system) &&
      filterAllows(filters.conditions, row.condition) &&
      filterAllows(filters.cases, row.caseLabel);
    const conditioned = row.condition === 'audience_conditioned';
    // An agnostic deck's folder audience (e.g. `all`) is no audience it is evaluated for.
    known.push({
      system: row.system,
      condition: row.condition,
      audience: conditioned ? row.deckAudience : null,
      case_label: row.caseLabel,
    });
    if (!Array.isArray(active)) {
      if (rowSelected) failures.push({ where: row.deckFile, error: active });
      continue;
    }
    const targets = conditioned ? [row.deckAudience] : active;
    for (const audience of targets) {
      const job = { ...row, audience };
      known.push(jobIdentity(job));
      if (!rowSelected || !matchesFilters(filters, jobIdentity(job))) continue;
      if (conditioned && !active.includes(audience)) {
        failures.push({
          where: row.deckFile,
          error: new InputError(`audience "${audience}" is not a valid audience of case ${row.caseLabel}`, {
            file: row.deckFile,
          }),
        });
        continue;
      }
      jobs.push(job);
    }
  }
  return { jobs, failures, known };
}

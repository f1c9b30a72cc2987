import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type Condition,
  compareCodePoints,
  conditionSchema,
  InputError,
  isXsbError,
  type RunLayout,
  type XsbError,
} from '@xsb/core';
import { findDeckFile } from '@xsb/decks';
import { loadSourceCase } from '@xsb/sources';

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

export interface JobFilters {
  systems?: readonly string[];
  conditions?: readonly string[];
  audiences?: readonly string[];
  cases?: readonly string[];
}

export interface DiscoveryFailure {
  where: string;
  error: XsbError;
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
            failures.push({
              where: dir,
              error: new InputError('no .pptx or .pdf deck in this folder', { file: dir }),
            });
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

const allows = (filter: readonly string[] | undefined, value: string) =>
  !filter || filter.length === 0 || filter.includes(value);

/**
 * Spec 000 job expansion: a conditioned deck is evaluated for its target audience; an agnostic deck
 * for every active audience of its case (the case's `valid_audiences`), each narrowed by the filters.
 */
export async function expandEvaluationJobs(
  layout: RunLayout,
  rows: readonly DeckRow[],
  filters: JobFilters = {},
): Promise<{ jobs: EvaluationJob[]; failures: DiscoveryFailure[] }> {
  const jobs: EvaluationJob[] = [];
  const failures: DiscoveryFailure[] = [];
  const audiencesByCase = new Map<string, string[] | XsbError>();
  for (const row of rows) {
    if (!allows(filters.systems, row.system) || !allows(filters.conditions, row.condition)) continue;
    if (!allows(filters.cases, row.caseLabel)) continue;
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
    if (!Array.isArray(active)) {
      failures.push({ where: row.deckFile, error: active });
      continue;
    }
    const targets = row.condition === 'audience_conditioned' ? [row.deckAudience] : active;
    for (const audience of targets) {
      if (!allows(filters.audiences, audience)) continue;
      if (row.condition === 'audience_conditioned' && !active.includes(audience)) {
        failures.push({
          where: row.deckFile,
          error: new InputError(`audience "${audience}" is not a valid audience of case ${row.caseLabel}`, {
            file: row.deckFile,
          }),
        });
        continue;
      }
      jobs.push({ ...row, audience });
    }
  }
  return { jobs, failures };
}

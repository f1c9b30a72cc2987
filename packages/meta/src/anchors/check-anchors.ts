import { existsSync } from 'node:fs';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import {
  anchorCheckFile,
  anchorDir,
  anchorRunName,
  anchorSetFile,
  anchorsRoot,
  DEFAULT_MIN_KAPPA,
  listAnchorSets,
} from '@xsb/bench';
import {
  hashFile,
  type MetaAnchorCheck,
  type MetaAnchorSet,
  metaAnchorCheckSchema,
  metaAnchorSetSchema,
  RunLayout,
  readJson,
  UsageError,
  writeJson,
} from '@xsb/core';
import { runClientOptions, runEvaluation } from '@xsb/eval';
import { createJudge } from '@xsb/llm';
import { computeAgreement } from '../agreement/compute-agreement';
import { readVerdictSet, type VerdictSet } from '../agreement/read-verdict-set';
import { clientSettings, loadCaseInstances, type ModelClientSettings } from '../sensitivity/score-decks';
import { checkDeckRubric } from './anchor-rubric';

export interface CheckAnchorsOptions extends ModelClientSettings {
  dataDir: string;
  judge: string;
  /** Anchor set id; optional when the data folder holds exactly one. */
  id?: string;
  minKappa?: number;
  now?: () => Date;
}

/** Where the check puts a frozen deck: the anchor run's deck tree, in the deck's own folder. */
function anchorDeckFile(layout: RunLayout, run: string, deck: MetaAnchorSet['decks'][number]): string {
  return join(
    layout.deckDir({
      run,
      system: deck.system,
      condition: deck.condition,
      audience: deck.deck_audience,
      caseLabel: deck.case_label,
    }),
    basename(deck.file),
  );
}

function mergeVerdicts(into: VerdictSet, from: VerdictSet | null): void {
  if (!from) return;
  for (const [key, item] of from.items) if (!into.items.has(key)) into.items.set(key, item);
  for (const judge of from.judges) if (!into.judges.includes(judge)) into.judges.push(judge);
  into.files.push(...from.files);
}

async function resolveAnchorSet(dataDir: string, id: string | undefined): Promise<MetaAnchorSet> {
  const ids = await listAnchorSets(dataDir);
  const chosen = id ?? (ids.length === 1 ? ids[0] : undefined);
  if (!chosen) {
    throw new UsageError(
      ids.length === 0
        ? `no anchor set under ${anchorsRoot(dataDir)}; freeze one from a finished run first`
        : `several anchor sets (${ids.join(', ')}); name one by its id`,
      ids.length === 0 ? { remedy: { step: 'anchor-set', dataDir } } : {},
    );
  }
  if (!existsSync(anchorSetFile(dataDir, chosen)))
    throw new UsageError(`no anchor set "${chosen}" (known: ${ids.join(', ') || 'none'})`);
  return readJson(anchorSetFile(dataDir, chosen), metaAnchorSetSchema);
}

/** The anchors' inputs must be the frozen ones: the probe bank and source context of every case, by hash. */
async function requireFrozenInputs(layout: RunLayout, set: MetaAnchorSet): Promise<void> {
  for (const deck of set.decks) {
    for (const [what, file, sha] of [
      ['probe bank', layout.probesFile(deck.case_label), deck.probes_sha256],
      ['source context', layout.sourceContextFile(deck.case_label), deck.source_sha256],
    ] as const) {
      if (!existsSync(file) || (await hashFile(file)) !== sha) {
        throw new UsageError(
          `the ${what} of case ${deck.case_label} changed since anchor set "${set.id}" was frozen (${file}); freeze the anchors again`,
        );
      }
    }
  }
}

async function checkRubricDecks(
  options: CheckAnchorsOptions,
  set: MetaAnchorSet,
  layout: RunLayout,
  run: string,
): Promise<void> {
  const rubricDecks = set.decks.filter((deck) => deck.rubric !== undefined);
  if (rubricDecks.length === 0) return;
  const instances = await loadCaseInstances(options.dataDir, []);
  const { client } = createJudge(options.judge, runClientOptions(options, layout.usageLedgerFile(run)));
  for (const deck of rubricDecks)
    await checkDeckRubric({
      rubric: deck.rubric!,
      caseLabel: deck.case_label,
      deckFile: anchorDeckFile(layout, run, deck),
      instances,
      setId: set.id,
      judge: options.judge,
      client,
    });
}

/** Passes on kappa ≥ minKappa; with one label only (kappa undefined) raw agreement must be 1; nothing matched fails. */
export function anchorVerdict(
  agreement: { matched_items: number; kappa: number | null; raw: number | null },
  minKappa: number,
  judges: { checked: string; frozen: string },
): { passed: boolean; reason: string } {
  const { kappa, raw } = agreement;
  if (agreement.matched_items === 0)
    return { passed: false, reason: 'no item of the anchors could be matched with the new verdicts' };
  if (kappa === null) {
    const passed = raw === 1;
    return {
      passed,
      reason: `kappa is undefined (one label only); ${passed ? 'passed on' : 'failed with'} raw agreement ${raw}`,
    };
  }
  const passed = kappa >= minKappa;
  return {
    passed,
    reason: passed
      ? `kappa ${kappa.toFixed(3)} >= ${minKappa} over ${agreement.matched_items} items`
      : `kappa ${kappa.toFixed(3)} < ${minKappa} over ${agreement.matched_items} items: judge ${judges.checked} does not reproduce the verdicts of ${judges.frozen}`,
  };
}

/**
 * `xsb meta anchors check --judge J`: re-scores the anchor decks with J in the run `<id>@anchors` (inputs
 * checked by hash) and writes `checks/<judge>.json` with the kappa against the frozen verdicts.
 */
export async function checkAnchors(
  options: CheckAnchorsOptions,
): Promise<{ check: MetaAnchorCheck; file: string }> {
  const set = await resolveAnchorSet(options.dataDir, options.id);
  const layout = new RunLayout(options.dataDir);
  const minKappa = options.minKappa ?? DEFAULT_MIN_KAPPA;
  const dir = anchorDir(options.dataDir, set.id);
  await requireFrozenInputs(layout, set);
  const run = anchorRunName(set.id);
  await rm(layout.decksRoot(run), { recursive: true, force: true });
  for (const deck of set.decks) {
    const target = anchorDeckFile(layout, run, deck);
    await mkdir(dirname(target), { recursive: true });
    await copyFile(join(dir, deck.file), target);
  }
  await runEvaluation({
    dataDir: options.dataDir,
    run,
    judge: options.judge,
    ...clientSettings(options),
  });
  await checkRubricDecks(options, set, layout, run);
  // Rubric verdicts sit beside the decks (keyed by deck path, judge dropped), X+Slides verdicts in
  // the evaluation folders; both sides are read the same way and compared as one item set.
  const frozen = await readVerdictSet(join(dir, 'verdicts'));
  const checked = await readVerdictSet(layout.evaluationsRoot(run));
  if (set.decks.some((deck) => deck.rubric !== undefined)) {
    mergeVerdicts(frozen, await readVerdictSet(join(dir, 'rubric')));
    mergeVerdicts(checked, await readVerdictSet(layout.decksRoot(run)).catch(() => null));
  }
  const agreement = computeAgreement(frozen, checked);
  const kappa = agreement.overall.kappa.value;
  const raw = agreement.overall.agreement.value;
  const { passed, reason } = anchorVerdict({ matched_items: agreement.matched_items, kappa, raw }, minKappa, {
    checked: options.judge,
    frozen: set.judge,
  });
  const check: MetaAnchorCheck = {
    anchor_set: set.id,
    judge: options.judge,
    frozen_judge: set.judge,
    n: agreement.matched_items,
    agreement: raw,
    kappa,
    min_kappa: minKappa,
    passed,
    reason,
    classes: agreement.classes.map((row) => ({
      class: row.class,
      n: row.n,
      agreement: row.agreement.value,
      kappa: row.kappa.value,
    })),
    only_in_frozen: agreement.only_in_a,
    only_in_check: agreement.only_in_b,
    checked_at: (options.now?.() ?? new Date()).toISOString(),
  };
  const file = anchorCheckFile(options.dataDir, set.id, options.judge);
  await writeJson(file, metaAnchorCheckSchema, check);
  return { check, file };
}

import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
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
import { runEvaluation } from '@xsb/eval';
import { computeAgreement } from '../agreement/compute-agreement';
import { readVerdictSet } from '../agreement/read-verdict-set';
import type { ModelClientSettings } from '../sensitivity/score-decks';
import { anchorCheckFile, anchorDir, anchorRunName, anchorSetFile, anchorsRoot } from './anchor-layout';

export const DEFAULT_MIN_KAPPA = 0.8;

export interface CheckAnchorsOptions extends ModelClientSettings {
  dataDir: string;
  judge: string;
  /** Anchor set id; optional when the data folder holds exactly one. */
  id?: string;
  minKappa?: number;
  now?: () => Date;
}

/** Every anchor set id under `<data>/meta/anchors/`. */
export async function listAnchorSets(dataDir: string): Promise<string[]> {
  const root = anchorsRoot(dataDir);
  if (!existsSync(root)) return [];
  const entries = await readdir(root, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory() && existsSync(join(root, entry.name, 'anchor_set.json')))
    .map((entry) => entry.name)
    .sort();
}

async function resolveAnchorSet(dataDir: string, id: string | undefined): Promise<MetaAnchorSet> {
  const ids = await listAnchorSets(dataDir);
  const chosen = id ?? (ids.length === 1 ? ids[0] : undefined);
  if (!chosen) {
    throw new UsageError(
      ids.length === 0
        ? `no anchor set under ${anchorsRoot(dataDir)}; run \`xsb meta anchors freeze --run R\` first`
        : `several anchor sets (${ids.join(', ')}); pass --id`,
    );
  }
  if (!existsSync(anchorSetFile(dataDir, chosen)))
    throw new UsageError(`no anchor set "${chosen}" (known: ${ids.join(', ') || 'none'})`);
  return readJson(anchorSetFile(dataDir, chosen), metaAnchorSetSchema);
}

/**
 * `xsb meta anchors check --judge J`: re-scores the anchor decks with J (stage 5 in the run
 * `<id>@anchors`, against the same probe bank and source context, checked by hash) and compares the
 * new verdicts with the frozen ones: Cohen's kappa and raw agreement over all matched items. Writes
 * `checks/<judge>.json`; passed = kappa ≥ minKappa (default 0.8).
 */
export async function checkAnchors(
  options: CheckAnchorsOptions,
): Promise<{ check: MetaAnchorCheck; file: string }> {
  const set = await resolveAnchorSet(options.dataDir, options.id);
  const layout = new RunLayout(options.dataDir);
  const minKappa = options.minKappa ?? DEFAULT_MIN_KAPPA;
  const dir = anchorDir(options.dataDir, set.id);
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
  const run = anchorRunName(set.id);
  await rm(layout.decksRoot(run), { recursive: true, force: true });
  for (const deck of set.decks) {
    const target = join(
      layout.deckDir({
        run,
        system: deck.system,
        condition: deck.condition,
        audience: deck.deck_audience,
        caseLabel: deck.case_label,
      }),
      basename(deck.file),
    );
    await mkdir(dirname(target), { recursive: true });
    await copyFile(join(dir, deck.file), target);
  }
  await runEvaluation({
    dataDir: options.dataDir,
    run,
    judge: options.judge,
    ...(options.env ? { env: options.env } : {}),
    ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}),
    ...(options.noCache !== undefined ? { noCache: options.noCache } : {}),
    ...(options.refresh !== undefined ? { refresh: options.refresh } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const agreement = computeAgreement(
    await readVerdictSet(join(dir, 'verdicts')),
    await readVerdictSet(layout.evaluationsRoot(run)),
  );
  const kappa = agreement.overall.kappa.value;
  const raw = agreement.overall.agreement.value;
  let passed: boolean;
  let reason: string;
  if (agreement.matched_items === 0) {
    passed = false;
    reason = 'no item of the anchors could be matched with the new verdicts';
  } else if (kappa === null) {
    passed = raw === 1;
    reason = `kappa is undefined (one label only); ${passed ? 'passed on' : 'failed with'} raw agreement ${raw}`;
  } else {
    passed = kappa >= minKappa;
    reason = passed
      ? `kappa ${kappa.toFixed(3)} >= ${minKappa} over ${agreement.matched_items} items`
      : `kappa ${kappa.toFixed(3)} < ${minKappa} over ${agreement.matched_items} items: judge ${options.judge} does not reproduce the verdicts of ${set.judge}`;
  }
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

/** What `xsb bench compare` needs to know before comparing runs of different judges. */
export interface AnchorCheckVerdict {
  passed: boolean;
  reason: string;
  check?: MetaAnchorCheck;
}

/**
 * Whether `judgeId` passed an anchor check at `minKappa` (the caller's threshold, default 0.8; the
 * newest check of that judge over all anchor sets counts). The judge that froze an anchor set passes
 * it by definition. Never throws for a missing check: it says what to run.
 */
export async function anchorCheckPasses(
  dataDir: string,
  judgeId: string,
  options: { minKappa?: number } = {},
): Promise<AnchorCheckVerdict> {
  const minKappa = options.minKappa ?? DEFAULT_MIN_KAPPA;
  const ids = await listAnchorSets(dataDir);
  const checks: MetaAnchorCheck[] = [];
  for (const id of ids) {
    const set = await readJson(anchorSetFile(dataDir, id), metaAnchorSetSchema);
    if (set.judge === judgeId)
      return {
        passed: true,
        reason: `judge ${judgeId} froze anchor set "${id}": its verdicts are the reference`,
      };
    const file = anchorCheckFile(dataDir, id, judgeId);
    if (existsSync(file)) checks.push(await readJson(file, metaAnchorCheckSchema));
  }
  if (checks.length === 0) {
    return {
      passed: false,
      reason:
        ids.length === 0
          ? `no anchor set in ${anchorsRoot(dataDir)}: freeze one (\`xsb meta anchors freeze --run R\`) and check judge ${judgeId} against it`
          : `judge ${judgeId} has no anchor check; run \`xsb meta anchors check --judge ${judgeId}\``,
    };
  }
  const check = checks.sort((a, b) => (a.checked_at < b.checked_at ? 1 : -1))[0]!;
  if (check.kappa === null) {
    return {
      passed: check.passed && check.agreement === 1,
      reason: `anchor set "${check.anchor_set}": ${check.reason}`,
      check,
    };
  }
  const passed = check.kappa >= minKappa;
  return {
    passed,
    reason: `anchor set "${check.anchor_set}" (${check.frozen_judge}): kappa ${check.kappa.toFixed(3)} ${passed ? '>=' : '<'} ${minKappa} over ${check.n} items, checked ${check.checked_at}`,
    check,
  };
}

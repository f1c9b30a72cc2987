import { join, resolve } from 'node:path';
import type { RunLayout, RunManifest } from '@xsb/core';
import { assertSafePathPart, InputError } from '@xsb/core/basics';

/**
 * File names inside one evaluation folder (`RunLayout.evaluationDir`). Stage 5 writes them; stages 6
 * and 7 read them back, so both sides take the names from here.
 */
export const EVALUATION_FILES = {
  metrics: 'metrics.json',
  manifest: 'run_manifest.json',
  probeScores: 'probe_scores.jsonl',
  deckStats: 'deck_stats.json',
  visibleText: 'deck_visible_text.txt',
  correctness: 'correctness.json',
  status: 'status.json',
  log: 'evaluate.log',
  renderedDir: 'rendered',
} as const;

/** `role` values of `run_manifest.json` inputs that stage 6 needs to recompute metrics. */
export const MANIFEST_INPUT_ROLES = {
  deck: 'deck',
  source: 'source_context',
  probes: 'probes',
  weights: 'weights',
} as const;

/**
 * Manifest input paths are relative to the data folder and the manifest stores the data folder
 * relative to the evaluation folder (`settings.data_dir`), so a copied or moved data folder still
 * resolves and two runs in different places write identical manifests.
 */
export function resolveManifestInput(evaluationDir: string, manifest: RunManifest, role: string): string {
  const input = manifest.inputs.find((entry) => entry.role === role);
  const file = join(evaluationDir, EVALUATION_FILES.manifest);
  if (!input) throw new InputError(`run manifest has no "${role}" input`, { file });
  const dataDir = manifest.settings.data_dir;
  if (typeof dataDir !== 'string') throw new InputError('run manifest has no settings.data_dir', { file });
  return resolve(evaluationDir, dataDir, input.path);
}

/**
 * Evaluations made with other settings than the defaults (the bench's configurations) live beside
 * `evaluations/` in `evaluations@<variant>/` with the same inner layout; stage 7 never reads them.
 */
export const EVALUATION_VARIANT_PREFIX = 'evaluations@';

/** `runs/<run>/evaluations/` for no variant, else `runs/<run>/evaluations@<variant>/`. */
export function evaluationsRootFor(layout: RunLayout, run: string, variant?: string): string {
  if (variant === undefined) return layout.evaluationsRoot(run);
  return join(layout.runDir(run), assertSafePathPart(`${EVALUATION_VARIANT_PREFIX}${variant}`, 'variant'));
}

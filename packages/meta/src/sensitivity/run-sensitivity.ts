import { join } from 'node:path';
import { RunLayout, writeFileAtomic, writeJson, writeJsonlAtomic } from '@xsb/core';
import { createJudge, describeJudge, type LlmClient } from '@xsb/llm';
import type { EvaluatorFamily } from '../evaluator-ids';
import type { PerturbationRecord } from '../schemas/meta-perturbation';
import {
  type MetaScoreRow,
  type MetaSensitivity,
  metaScoreRowSchema,
  metaSensitivitySchema,
} from '../schemas/meta-sensitivity';
import { computeSensitivity } from './compute-sensitivity';
import { buildDerivedRun } from './derived-run';
import { renderSensitivityReport } from './render-sensitivity-report';
import {
  clientSettings,
  loadCaseInstances,
  type ModelClientSettings,
  scoreDerivedDecks,
} from './score-decks';

export const DEFAULT_META_SEED = 12;

export interface RunSensitivityOptions extends ModelClientSettings {
  dataDir: string;
  run: string;
  /** Folders (or files) holding `perturbations.jsonl` from `xsb meta perturb`. */
  perturbations: readonly string[];
  /** `lexical` (default) or a model judge spec. */
  judge?: string;
  /** Rubric instances beside those found under `<data>/rubric/`. */
  instances?: readonly string[];
  /** Where sensitivity.json, report.md and scores.jsonl go (default `runs/<run>@meta/meta/`). */
  outDir?: string;
  seed?: number;
  resamples?: number;
  confidence?: number;
  tauA?: number;
  /** A ready model client for the rubric and holistic judges (tests); default: made from `judge`. */
  client?: LlmClient | null;
  ledgerFile?: string;
  /** Evaluator families to score (default: all but `design`, which renders every deck and is asked for by name). */
  families?: readonly EvaluatorFamily[];
}

export interface RunSensitivityResult {
  result: MetaSensitivity;
  files: { sensitivity: string; report: string; scores: string };
  rows: MetaScoreRow[];
}

/** `xsb meta sensitivity`: scores originals and perturbations, writes `scores.jsonl`, `sensitivity.json`, `report.md`. */
export async function runSensitivity(options: RunSensitivityOptions): Promise<RunSensitivityResult> {
  const judge = options.judge ?? 'lexical';
  const offline = describeJudge(judge).kind === 'offline';
  const derived = await buildDerivedRun(options.dataDir, options.run, options.perturbations);
  const layout = new RunLayout(options.dataDir);
  const ledgerFile = options.ledgerFile ?? layout.usageLedgerFile(derived.run);
  const client =
    options.client !== undefined
      ? options.client
      : createJudge(judge, { ...clientSettings(options), ledgerFile }).client;
  const instances = await loadCaseInstances(options.dataDir, options.instances ?? []);
  const scored = await scoreDerivedDecks(derived, { ...options, judge, client, instances });
  const records = new Map<string, PerturbationRecord>();
  for (const deck of derived.decks)
    if (deck.record) records.set(`${deck.deck}\u0000${deck.variant}`, deck.record);
  const result = computeSensitivity({
    judge,
    offline,
    run: options.run,
    derivedRun: derived.run,
    rows: scored.rows,
    records,
    skipped: derived.skipped,
    failures: [...derived.failures, ...scored.failures],
    seed: options.seed ?? DEFAULT_META_SEED,
    resamples: options.resamples ?? 2000,
    confidence: options.confidence ?? 0.95,
  });
  const outDir = options.outDir ?? join(layout.runDir(derived.run), 'meta');
  const files = {
    sensitivity: join(outDir, 'sensitivity.json'),
    report: join(outDir, 'report.md'),
    scores: join(outDir, 'scores.jsonl'),
  };
  await writeJsonlAtomic(files.scores, metaScoreRowSchema, scored.rows);
  await writeJson(files.sensitivity, metaSensitivitySchema, result);
  await writeFileAtomic(files.report, renderSensitivityReport(result));
  return { result, files, rows: scored.rows };
}

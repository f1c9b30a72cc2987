import { z } from 'zod';
import { benchEvaluationOverridesSchema } from './bench-config';
import { benchLeftOutFactorSchema } from './bench-summary';
import { benchGitStateSchema } from './bench-test-ledger';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex sha256');

/** The fully resolved evaluation settings of one configuration. */
export const benchEvaluationSettingsSchema = z.looseObject({
  judge: z.string().min(1),
  batch_size: z.number().int().min(1),
  judge_input: z.enum(['text', 'image']),
  weight_k: z.number().int().min(1),
  claims: z.enum(['on', 'off']),
  tau_a: finite,
  image_mode_words_per_slide: finite,
  claim_settings: z.looseObject({
    max_claims: z.number().int().min(1),
    snippets_per_claim: z.number().int().min(1),
    chunk_chars: z.number().int().min(1),
    verify_batch_size: z.number().int().min(1),
  }),
});
export type BenchEvaluationSettings = z.infer<typeof benchEvaluationSettingsSchema>;

export const benchConfigurationSchema = z.looseObject({
  name: z.string().min(1),
  /** Generated sets: each factor on (true) or off (false); named configurations: empty. */
  factors: z.record(z.string(), z.boolean()),
  overrides: benchEvaluationOverridesSchema,
  settings: benchEvaluationSettingsSchema,
  /** sha256 of the settings that decide the evaluation folder (everything but tau_a). */
  settings_digest: sha256,
  /** The evaluations folder, relative to the data folder (shared by configurations of equal digest). */
  evaluations_dir: z.string().min(1),
});
export type BenchConfiguration = z.infer<typeof benchConfigurationSchema>;

export const benchJudgeSchema = z.looseObject({
  id: z.string().min(1),
  offline: z.boolean(),
  replay_store: z.string().nullable(),
  mode: z.enum(['offline', 'replay', 'record']),
  model_label: z.string().nullable(),
  /** `record` with `--fill JUDGE`: the model that answered the prompts the store lacked, during this run. */
  filled_by: z.string().nullable().default(null),
});
export type BenchJudge = z.infer<typeof benchJudgeSchema>;

export const benchJudgeCallsSchema = z.looseObject({
  /** Usage-ledger lines the run appended (each one judged call; lexical batches log zero-token lines). */
  measured: z.number().int().min(0),
  /** Calls the distinct (deck, probe batch, settings) units of the run need, counted from its artifacts. */
  distinct: z.number().int().min(0),
  /** Calls a separate run per configuration (no shared stage outputs) would make. */
  naive: z.number().int().min(0),
});
export type BenchJudgeCalls = z.infer<typeof benchJudgeCallsSchema>;

/**
 * `run.json` of a bench run (`<data>/bench/runs/<run id>/`): what was measured. Written first with
 * status `running` (with pid and host, so a killed run is found), rewritten as `done` or `failed`.
 */
export const benchRunSchema = z.looseObject({
  run_id: z.string().min(1),
  status: z.enum(['running', 'done', 'failed']),
  reason: z.string().nullable(),
  started_at: z.string().min(1),
  finished_at: z.string().nullable(),
  pid: z.number().int(),
  host: z.string().min(1),
  git: benchGitStateSchema,
  pipeline_run: z.string().min(1),
  /** sha256 of every configuration's effective settings, the bootstrap and the selection. */
  settings_digest: sha256,
  split: z.enum(['dev', 'test', 'all']),
  /** `i/n` when the run took only the split's cases with `md5(case) % n == i` (`--shard`), else null. */
  shard: z.string().nullable().default(null),
  cases: z.array(z.string()),
  test_ledger_count: z.number().int().min(0),
  systems: z.array(z.string()),
  reference: z.string().nullable(),
  /**
   * How the reference was chosen: `flag` (--reference), `systems` (the first of --systems),
   * `run_sheet` (the run sheet's first compared system), `sorted` (no sheet names one); null in
   * records written before it was kept.
   */
  reference_from: z.enum(['flag', 'systems', 'run_sheet', 'sorted']).nullable().default(null),
  config_spec: z.string().min(1),
  factors: z.array(z.string()),
  /** Factors the default set of a generated configuration set left out: the run's judge cannot serve them. */
  left_out_factors: z.array(benchLeftOutFactorSchema).default([]),
  shapley_metric: z.string().min(1),
  /** Whether every deck's design metrics were measured (`--design`); false in records written before it. */
  design: z.boolean().default(false),
  configurations: z.array(benchConfigurationSchema),
  judges: z.array(benchJudgeSchema),
  bootstrap: z.looseObject({
    seed: z.number().int(),
    resamples: z.number().int().min(1),
    confidence: finite,
  }),
  diag_below: z.number().int().min(1),
  tau_a: finite,
  /** Content digests of the inputs the rows used (paths relative to the data folder). */
  digests: z.looseObject({
    probe_banks: z.record(z.string(), sha256),
    weights: z.record(z.string(), sha256),
    decks: z.record(z.string(), sha256),
    rubric_instances: z.record(z.string(), sha256),
  }),
  judge_calls: benchJudgeCallsSchema.nullable(),
  rows: z.looseObject({ total: z.number().int().min(0), failed: z.number().int().min(0) }),
  /** Source case folders and rubric instances that could not be read (the run went on without them). */
  input_failures: z.array(z.looseObject({ where: z.string(), error: z.string() })).default([]),
});
export type BenchRun = z.infer<typeof benchRunSchema>;

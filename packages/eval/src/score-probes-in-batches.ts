import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import {
  type Deck,
  executeWorkList,
  hashCanonicalJson,
  JsonlWriter,
  type Probe,
  type ProbeScore,
  type ProgressReporter,
  probeScoreSchema,
  readJsonlAll,
  type StageEventListener,
  writeJsonlAtomic,
} from '@xsb/core';
import type { JudgeDescription } from '@xsb/llm';
import type { AnswerabilityPromptInput } from './answerability-prompt';
import type { AnswerabilityBatchResult, EvalJudge } from './eval-judge';
import { type AnswerabilityUnit, answerabilityUnits } from './evaluation-work-list';
import type { JudgeInputMode, ProbeJudgment } from './probe-judgment';

/** What a score row must share with the current job to be reused instead of judged again. */
export interface ScoreReuseKey {
  judge: string;
  judge_input_mode: JudgeInputMode;
  deck_sha256: string;
  probes_sha256: string;
  batch_size: number;
  /** Test–retest repeat (≥ 1) the rows answer; absent for the ordinary ask. */
  repeat?: number;
  /** The lexical judge's rules version (see lexicalRulesKey); absent for a model judge. */
  lexical_rules?: number;
}

function reusable(row: ProbeScore, key: ScoreReuseKey): boolean {
  const meta = row.metadata as Record<string, unknown>;
  // A repeat's row never stands in for another repeat's, nor for the ordinary ask's.
  if (meta.repeat !== key.repeat) return false;
  return (Object.keys(key) as Array<keyof ScoreReuseKey>).every((name) => meta[name] === key[name]);
}

async function readReusableScores(files: string[], key: ScoreReuseKey): Promise<Map<string, ProbeScore>> {
  const rows = new Map<string, ProbeScore>();
  for (const file of files) {
    if (!existsSync(file)) continue;
    // A torn last line from a killed run is skipped, not fatal: its batch is simply judged again.
    for (const row of await readJsonlAll(file, probeScoreSchema, { onInvalid: () => {} })) {
      if (reusable(row, key) && !rows.has(row.probe_id)) rows.set(row.probe_id, row);
    }
  }
  return rows;
}

function scoreRow(judgment: ProbeJudgment, key: ScoreReuseKey, batch: number, missing: boolean): ProbeScore {
  return {
    probe_id: judgment.probe_id,
    covered: judgment.covered,
    answer: judgment.answer,
    cited_evidence: judgment.cited_evidence,
    metadata: {
      ...key,
      confidence: judgment.confidence,
      batch,
      ...(missing ? { missing_judgment: true } : {}),
    },
  };
}

export interface ScoreProbesInput {
  judge: EvalJudge;
  /** Everything of the answerability request but the probes of a batch. */
  request: Omit<AnswerabilityPromptInput, 'probes'> & { deck: Deck };
  probes: readonly Probe[];
  reuseKey: ScoreReuseKey;
  concurrency: number;
  finalFile: string;
  partialFile: string;
  /** Judge every batch again, reusing no row. */
  force: boolean;
  /**
   * Other score files whose rows may be reused when their reuse key matches (e.g. the same deck
   * judged for another audience or in another configuration's folder): a row carries its key, so
   * sharing cannot mix judges, decks, banks or batch sizes.
   */
  donorFiles?: readonly string[];
  /** The job's name (the prefix of unit ids in events). */
  job?: string;
  /** The files that decide the batches (the units' `reads`). */
  reads?: readonly string[];
  /** Ticks once per judged batch; reused batches are skipped (counted, no work). */
  progress?: ProgressReporter;
  progressNote?: string;
  onEvent?: StageEventListener;
}

/**
 * The answerability work of a job: the score rows that may be reused (final, partial and donor
 * files, same reuse key; none with `force`) and the fixed batches as work units (reused when all
 * their rows are known). What `scoreProbesInBatches` runs and what `xsb plan` prices.
 */
export async function readAnswerabilityWork(
  input: Pick<
    ScoreProbesInput,
    'probes' | 'reuseKey' | 'finalFile' | 'partialFile' | 'force' | 'donorFiles' | 'job' | 'reads'
  > & { request: Omit<AnswerabilityPromptInput, 'probes'>; assumption?: string },
  judge: Pick<JudgeDescription, 'kind'>,
): Promise<{ known: Map<string, ProbeScore>; units: AnswerabilityUnit[] }> {
  const { reuseKey } = input;
  const known = input.force
    ? new Map<string, ProbeScore>()
    : await readReusableScores([input.finalFile, input.partialFile, ...(input.donorFiles ?? [])], reuseKey);
  const units = answerabilityUnits(
    {
      job: input.job ?? '',
      reads: input.reads ?? [],
      request: input.request,
      probes: input.probes,
      batchSize: reuseKey.batch_size,
      known,
      reuseKey: hashCanonicalJson(reuseKey),
      artifact: input.finalFile,
      ...(input.assumption ? { assumption: input.assumption } : {}),
    },
    judge,
  );
  return { known, units };
}

/** Draws a stage's judged units as ticks and reused ones as skips on a job's progress, and passes events on. */
export function progressTicks(
  progress: ProgressReporter | undefined,
  note: string | undefined,
  onEvent?: StageEventListener,
): StageEventListener {
  return (event) => {
    onEvent?.(event);
    if (event.type !== 'unit-done') return;
    if (event.status === 'done') progress?.tick(1, note);
    else progress?.skip?.(1, note);
  };
}

/** The log notes of one answered batch: ids the judge left out and ids it invented. */
function batchNotes(index: number, answer: AnswerabilityBatchResult): string[] {
  const notes: string[] = [];
  if (answer.missing.length > 0)
    notes.push(`batch ${index}: no judgment for ${answer.missing.join(', ')}; recorded as uncovered`);
  if (answer.unknown.length > 0)
    notes.push(`batch ${index}: ignored judgments for unknown probe ids ${answer.unknown.join(', ')}`);
  return notes;
}

/**
 * Probe answerability, resumable per batch (README: Reuse): a failing batch stops the step, the
 * batches in flight finish and are kept; `notes` come in batch order.
 */
export async function scoreProbesInBatches(
  input: ScoreProbesInput,
): Promise<{ scores: ProbeScore[]; judgedBatches: number; reusedBatches: number; notes: string[] }> {
  const { partialFile, reuseKey, judge } = input;
  const { known, units } = await readAnswerabilityWork(input, judge);
  const reused = units.filter((unit) => unit.decision.kind === 'reuse').length;
  if (input.force || reused === 0) await rm(partialFile, { force: true });
  const notesByBatch = new Map<number, string[]>();
  const writer = await JsonlWriter.open(partialFile, probeScoreSchema);
  try {
    await executeWorkList(units, {
      concurrency: input.concurrency,
      unitName: 'batches',
      stopsStage: () => true,
      onEvent: progressTicks(input.progress, input.progressNote, input.onEvent),
      run: async (unit, context) => {
        if (unit.decision.kind === 'reuse') return;
        const { index, probes } = unit.input;
        const answer = await judge.judgeAnswerability({ ...input.request, probes }, context.callMade);
        notesByBatch.set(index, batchNotes(index, answer));
        for (const judgment of answer.judgments) {
          const row = scoreRow(judgment, reuseKey, index, answer.missing.includes(judgment.probe_id));
          await writer.write(row);
          known.set(judgment.probe_id, row);
        }
      },
    });
  } finally {
    await writer.close();
  }
  const scores = await writeJsonlAtomic(
    input.finalFile,
    probeScoreSchema,
    input.probes.map((probe) => known.get(probe.probe_id)!),
  );
  await rm(partialFile, { force: true });
  return {
    scores,
    judgedBatches: units.length - reused,
    reusedBatches: reused,
    notes: [...notesByBatch.keys()].sort((a, b) => a - b).flatMap((index) => notesByBatch.get(index)!),
  };
}

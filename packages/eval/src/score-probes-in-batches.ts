import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import {
  type Deck,
  JsonlWriter,
  mapWithConcurrency,
  type Probe,
  type ProbeScore,
  type ProgressReporter,
  probeScoreSchema,
  readJsonlAll,
  writeJsonlAtomic,
} from '@xsb/core';
import type { AnswerabilityPromptInput } from './answerability-prompt';
import type { EvalJudge } from './eval-judge';
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
  /** Ticks once per judged batch; reused batches are skipped (counted, no work). */
  progress?: ProgressReporter;
  progressNote?: string;
}

/**
 * The fixed batches of a bank (`probes[i·B, (i+1)·B)`), the score rows that may be reused (final,
 * partial and donor files, same reuse key; none with `force`), and the batches still to judge.
 */
export async function pendingScoreBatches(
  input: Pick<ScoreProbesInput, 'probes' | 'reuseKey' | 'finalFile' | 'partialFile' | 'force' | 'donorFiles'>,
): Promise<{
  known: Map<string, ProbeScore>;
  batches: Array<{ index: number; probes: readonly Probe[] }>;
  pending: Array<{ index: number; probes: readonly Probe[] }>;
}> {
  const { reuseKey } = input;
  const batchSize = reuseKey.batch_size;
  const known = input.force
    ? new Map<string, ProbeScore>()
    : await readReusableScores([input.finalFile, input.partialFile, ...(input.donorFiles ?? [])], reuseKey);
  const batches: Array<{ index: number; probes: readonly Probe[] }> = [];
  for (let i = 0; i < input.probes.length; i += batchSize)
    batches.push({ index: batches.length, probes: input.probes.slice(i, i + batchSize) });
  const pending = batches.filter((batch) => !batch.probes.every((probe) => known.has(probe.probe_id)));
  return { known, batches, pending };
}

/**
 * Probe answerability, resumable per batch. Batches are fixed (`probes[i·B, (i+1)·B)` in bank
 * order); a batch whose rows all exist with the same reuse key (in the final or the partial file) is
 * not judged. Each judged batch is appended to the partial file; then the final file is rewritten in
 * bank order and the partial file removed, so a killed run continues without duplicated rows.
 * `notes` (missing and unknown judgment ids) come in batch order.
 */
export async function scoreProbesInBatches(
  input: ScoreProbesInput,
): Promise<{ scores: ProbeScore[]; judgedBatches: number; reusedBatches: number; notes: string[] }> {
  const { partialFile } = input;
  const { reuseKey } = input;
  const { known, batches, pending } = await pendingScoreBatches(input);
  if (input.force || pending.length === batches.length) await rm(partialFile, { force: true });
  const reused = batches.length - pending.length;
  if (reused > 0) input.progress?.skip?.(reused, input.progressNote);

  const notesByBatch = new Map<number, string[]>();
  const writer = await JsonlWriter.open(partialFile, probeScoreSchema);
  try {
    await mapWithConcurrency(pending, input.concurrency, async (batch) => {
      const answer = await input.judge.judgeAnswerability({ ...input.request, probes: batch.probes });
      const notes: string[] = [];
      if (answer.missing.length > 0)
        notes.push(
          `batch ${batch.index}: no judgment for ${answer.missing.join(', ')}; recorded as uncovered`,
        );
      if (answer.unknown.length > 0)
        notes.push(
          `batch ${batch.index}: ignored judgments for unknown probe ids ${answer.unknown.join(', ')}`,
        );
      notesByBatch.set(batch.index, notes);
      for (const judgment of answer.judgments) {
        const row = scoreRow(judgment, reuseKey, batch.index, answer.missing.includes(judgment.probe_id));
        await writer.write(row);
        known.set(judgment.probe_id, row);
      }
      input.progress?.tick(1, input.progressNote);
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
    judgedBatches: pending.length,
    reusedBatches: reused,
    notes: [...notesByBatch.keys()].sort((a, b) => a - b).flatMap((index) => notesByBatch.get(index)!),
  };
}

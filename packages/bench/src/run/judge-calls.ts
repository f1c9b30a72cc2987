import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { correctnessSchema, probeScoreSchema, readJson, readJsonlAll } from '@xsb/core';
import { usageLedgerEntrySchema } from '@xsb/llm';
import { EVALUATION_FILES } from '@xsb/metrics';
import type { BenchRow } from '../schemas/bench-row';
import type { BenchJudgeCalls } from '../schemas/bench-run';

/** Usage-ledger lines of the evaluation stages (`eval.*`) in a ledger, from line `from` on. */
export async function countEvaluationCalls(
  ledgerFile: string,
  from = 0,
): Promise<{ lines: number; evalCalls: number }> {
  if (!existsSync(ledgerFile)) return { lines: 0, evalCalls: 0 };
  const lines = (await readFile(ledgerFile, 'utf8')).split('\n').filter((line) => line.trim() !== '');
  let evalCalls = 0;
  for (const line of lines.slice(from)) {
    const parsed = usageLedgerEntrySchema.safeParse(JSON.parse(line));
    if (parsed.success && parsed.data.stage.startsWith('eval.')) evalCalls += 1;
  }
  return { lines: lines.length, evalCalls };
}

interface FolderWork {
  batches: string[];
  correctness: { key: string; calls: number } | null;
}

async function folderWork(dir: string): Promise<FolderWork> {
  const scores = await readJsonlAll(join(dir, EVALUATION_FILES.probeScores), probeScoreSchema);
  const batches = new Set<string>();
  for (const row of scores) {
    const m = row.metadata as Record<string, unknown>;
    batches.add(
      [m.judge, m.judge_input_mode, m.deck_sha256, m.probes_sha256, m.batch_size, m.batch].join('|'),
    );
  }
  const file = join(dir, EVALUATION_FILES.correctness);
  let correctness: FolderWork['correctness'] = null;
  if (existsSync(file)) {
    const record = await readJson(file, correctnessSchema);
    const verifyBatch = Number((record.settings as Record<string, unknown>).verify_batch_size ?? 12);
    // One claim extraction, then one verification call per batch of claims.
    correctness = { key: record.cache_key, calls: 1 + Math.ceil(record.claim_count / verifyBatch) };
  }
  return { batches: [...batches], correctness };
}

/**
 * The judge calls a run's evaluations need, counted from their artifacts over the rows without an
 * error: `distinct` counts each distinct answerability batch (judge, input mode, deck, probe bank,
 * batch size, batch index) and each distinct correctness cache entry (one extraction plus its
 * verification batches) once; `naive` counts what one separate run per configuration would make,
 * with no folder shared across configurations and no score row shared across audiences (eval's
 * correctness cache still applies within a configuration). Corrective re-asks and retries are extra.
 */
export async function countDistinctWork(
  dataDir: string,
  rows: readonly BenchRow[],
  measured: number,
): Promise<BenchJudgeCalls> {
  const cache = new Map<string, FolderWork>();
  const distinctBatches = new Set<string>();
  const distinctCorrectness = new Map<string, number>();
  let naive = 0;
  const naiveCorrectness = new Map<string, Map<string, number>>();
  for (const row of rows) {
    if (row.error !== null || row.evaluation_dir === null) continue;
    let work = cache.get(row.evaluation_dir);
    if (!work) {
      work = await folderWork(join(dataDir, row.evaluation_dir));
      cache.set(row.evaluation_dir, work);
    }
    for (const batch of work.batches) distinctBatches.add(batch);
    naive += work.batches.length;
    if (work.correctness) {
      distinctCorrectness.set(work.correctness.key, work.correctness.calls);
      const perConfig = naiveCorrectness.get(row.configuration) ?? new Map<string, number>();
      perConfig.set(work.correctness.key, work.correctness.calls);
      naiveCorrectness.set(row.configuration, perConfig);
    }
  }
  const sum = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);
  naive += sum([...naiveCorrectness.values()].map((perConfig) => sum(perConfig.values())));
  return {
    measured,
    distinct: distinctBatches.size + sum(distinctCorrectness.values()),
    naive,
  };
}

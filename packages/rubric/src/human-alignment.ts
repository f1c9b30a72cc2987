import { extname } from 'node:path';
import { compareCodePoints, InputError, readUtf8Text, ValidationError } from '@xsb/core';
import { bootstrapMeanInterval, spearman } from '@xsb/stats';
import { parse } from 'csv-parse/sync';
import type { RubricRunSummary } from './schemas/rubric-evaluation';

/** One human ranking: in sample `sample_id`, `system` got `rank` (1 = best) from `annotator`. */
export interface HumanRanking {
  sample_id: string;
  system: string;
  rank: number;
  annotator: string;
}

/** One evaluator score: higher = better. */
export interface SystemScore {
  sample_id: string;
  system: string;
  score: number;
}

/** One data row of a CSV file, keyed by the header, with the line where it ends (header = line 1). */
interface CsvRow {
  line: number;
  cells: Record<string, string>;
}

/** A CSV with a header row; blank rows are skipped and short rows read as empty cells. */
export function parseCsv(text: string, file: string): CsvRow[] {
  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    records = parse(text, {
      bom: true,
      trim: true,
      info: true,
      relax_column_count: true,
      skip_records_with_empty_values: true,
    }) as unknown as Array<{ record: string[]; info: { lines: number } }>;
  } catch (error) {
    throw new ValidationError(
      `not a valid CSV file (${(error as Error).message})`,
      { file },
      { cause: error },
    );
  }
  const header = records[0]?.record ?? [];
  return records.slice(1).map(({ record, info }) => ({
    line: info.lines,
    cells: Object.fromEntries(header.map((name, index) => [name, record[index] ?? ''])),
  }));
}

function requireColumns(rows: CsvRow[], columns: string[], file: string): void {
  const first = rows[0];
  if (!first) throw new InputError('no data rows', { file });
  for (const column of columns) {
    if (!(column in first.cells))
      throw new ValidationError(`missing column "${column}" (need ${columns.join(', ')})`, { file });
  }
}

function numberCell(value: string, file: string, line: number, field: string): number {
  const number = Number(value);
  if (value === '' || !Number.isFinite(number))
    throw new ValidationError(`not a number: "${value}"`, { file, line, field });
  return number;
}

/** `rankings.csv`: columns sample_id, system, rank (1 = best), optional annotator. */
export async function readHumanRankings(file: string): Promise<HumanRanking[]> {
  const rows = parseCsv(await readUtf8Text(file), file);
  requireColumns(rows, ['sample_id', 'system', 'rank'], file);
  return rows.map(({ line, cells }) => ({
    sample_id: cells.sample_id as string,
    system: cells.system as string,
    rank: numberCell(cells.rank as string, file, line, 'rank'),
    annotator: cells.annotator || 'human',
  }));
}

/** Evaluator scores: CSV with sample_id, system, score, or a JSON array of those objects. */
export async function readSystemScores(file: string): Promise<SystemScore[]> {
  const text = await readUtf8Text(file);
  if (extname(file).toLowerCase() === '.json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new ValidationError(`invalid JSON (${(error as Error).message})`, { file }, { cause: error });
    }
    if (!Array.isArray(parsed))
      throw new ValidationError('expected an array of {sample_id, system, score}', { file });
    return parsed.map((entry, index) => {
      const record = (entry ?? {}) as Record<string, unknown>;
      for (const field of ['sample_id', 'system'] as const) {
        if (typeof record[field] !== 'string' || record[field] === '') {
          throw new ValidationError('must be a non-empty string', { file, field: `[${index}].${field}` });
        }
      }
      if (typeof record.score !== 'number' || !Number.isFinite(record.score)) {
        throw new ValidationError('score must be a number', { file, field: `[${index}].score` });
      }
      return { sample_id: record.sample_id as string, system: record.system as string, score: record.score };
    });
  }
  const rows = parseCsv(text, file);
  requireColumns(rows, ['sample_id', 'system', 'score'], file);
  return rows.map(({ line, cells }) => ({
    sample_id: cells.sample_id as string,
    system: cells.system as string,
    score: numberCell(cells.score as string, file, line, 'score'),
  }));
}

export interface BootstrapInterval {
  low: number;
  high: number;
  confidence: number;
  resamples: number;
  seed: number;
}

export interface AlignmentResult {
  evaluator: string;
  mean_rho: number | null;
  interval: BootstrapInterval | null;
  samples_used: number;
  /** Samples with fewer than two shared systems or constant ranks/scores (rho undefined). */
  samples_skipped: string[];
  per_sample: Record<string, number | null>;
}

/** Mean rank per (sample, system) over annotators. */
function consensusRanks(rankings: HumanRanking[]): Map<string, Map<string, number>> {
  const sums = new Map<string, Map<string, { total: number; count: number }>>();
  for (const ranking of rankings) {
    const sample = sums.get(ranking.sample_id) ?? new Map();
    const entry = sample.get(ranking.system) ?? { total: 0, count: 0 };
    entry.total += ranking.rank;
    entry.count += 1;
    sample.set(ranking.system, entry);
    sums.set(ranking.sample_id, sample);
  }
  return new Map(
    [...sums].map(([id, systems]) => [
      id,
      new Map([...systems].map(([system, e]) => [system, e.total / e.count])),
    ]),
  );
}

/**
 * Mean per-sample Spearman rho between an evaluator's scores and the human ranking (ranks negated so
 * that "better" agrees in sign), with a seeded percentile bootstrap over samples.
 */
export function alignWithHumans(
  evaluator: string,
  rankings: HumanRanking[],
  scores: SystemScore[],
  bootstrap: { resamples?: number; confidence?: number; seed?: number } = {},
): AlignmentResult {
  const human = consensusRanks(rankings);
  const perSample: Record<string, number | null> = {};
  const skipped: string[] = [];
  const used: number[] = [];
  for (const sampleId of [...human.keys()].sort()) {
    const humanRanks = human.get(sampleId) as Map<string, number>;
    const sampleScores = new Map(
      scores.filter((s) => s.sample_id === sampleId).map((s) => [s.system, s.score]),
    );
    const systems = [...humanRanks.keys()].filter((system) => sampleScores.has(system)).sort();
    const rho = spearman(
      systems.map((system) => -(humanRanks.get(system) as number)),
      systems.map((system) => sampleScores.get(system) as number),
    );
    perSample[sampleId] = rho;
    if (rho === null) skipped.push(sampleId);
    else used.push(rho);
  }
  return {
    evaluator,
    mean_rho: used.length > 0 ? used.reduce((sum, rho) => sum + rho, 0) / used.length : null,
    interval: meanRhoInterval(used, bootstrap),
    samples_used: used.length,
    samples_skipped: skipped,
    per_sample: perSample,
  };
}

/**
 * Inter-annotator agreement (the paper's "Human" row): each annotator's ranking against the mean
 * ranking of the others, per sample; needs an `annotator` column with at least two annotators.
 */
export function humanAgreement(
  rankings: HumanRanking[],
  bootstrap: { resamples?: number; confidence?: number; seed?: number } = {},
): AlignmentResult | null {
  const annotators = [...new Set(rankings.map((r) => r.annotator))].sort();
  if (annotators.length < 2) return null;
  const bySample = new Map<string, number[]>();
  for (const annotator of annotators) {
    const own = rankings.filter((r) => r.annotator === annotator);
    const others = rankings.filter((r) => r.annotator !== annotator);
    const result = alignWithHumans(
      annotator,
      others,
      own.map((r) => ({ sample_id: r.sample_id, system: r.system, score: -r.rank })),
    );
    for (const [sample, rho] of Object.entries(result.per_sample)) {
      if (rho === null) continue;
      bySample.set(sample, [...(bySample.get(sample) ?? []), rho]);
    }
  }
  const perSample: Record<string, number | null> = {};
  const used: number[] = [];
  for (const sample of [...new Set(rankings.map((r) => r.sample_id))].sort()) {
    const values = bySample.get(sample);
    const mean = values ? values.reduce((s, v) => s + v, 0) / values.length : null;
    perSample[sample] = mean;
    if (mean !== null) used.push(mean);
  }
  return {
    evaluator: 'human',
    mean_rho: used.length > 0 ? used.reduce((s, v) => s + v, 0) / used.length : null,
    interval: meanRhoInterval(used, bootstrap),
    samples_used: used.length,
    samples_skipped: Object.entries(perSample)
      .filter(([, rho]) => rho === null)
      .map(([sample]) => sample),
    per_sample: perSample,
  };
}

/**
 * Evaluator scores for alignment from `xsb rubric run` summaries, one per system (generator):
 * sample = instance id, score = the paper total or the PresentBench weighted total. Rows without a
 * score (failed, offline) are left out, so such samples lose that system.
 */
export function scoresFromRunSummaries(
  summaries: Array<{ system: string; summary: RubricRunSummary }>,
  metric: 'paper' | 'presentbench',
): SystemScore[] {
  const out: SystemScore[] = [];
  for (const { system, summary } of summaries) {
    for (const row of summary.rows) {
      const score = metric === 'paper' ? row.paper_total_percent : row.presentbench_total_percent;
      if (score !== null) out.push({ sample_id: row.instance_id, system, score });
    }
  }
  return out.sort(
    (a, b) => compareCodePoints(a.sample_id, b.sample_id) || compareCodePoints(a.system, b.system),
  );
}

/** CSV the alignment reads back (`sample_id,system,score`), values quoted when they need it. */
export function formatScoresCsv(scores: SystemScore[]): string {
  const cell = (value: string): string => (/[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
  return `sample_id,system,score\n${scores.map((s) => `${cell(s.sample_id)},${cell(s.system)},${s.score}`).join('\n')}\n`;
}

/**
 * The mean rho's percentile bootstrap interval over samples: @xsb/stats' `bootstrapMeanInterval` (the one
 * owner of the rule), with the alignment's default seed and its result shape.
 */
export function meanRhoInterval(
  values: number[],
  options: { resamples?: number; confidence?: number; seed?: number } = {},
): BootstrapInterval | null {
  const resamples = options.resamples ?? 2000;
  const confidence = options.confidence ?? 0.95;
  const seed = options.seed ?? 20260307;
  const interval = bootstrapMeanInterval(values, { seed, resamples, confidence });
  if (interval.ci_low === null || interval.ci_high === null) return null;
  return { low: interval.ci_low, high: interval.ci_high, confidence, resamples, seed };
}

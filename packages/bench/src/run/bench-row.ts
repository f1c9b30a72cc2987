import { relative, sep } from 'node:path';
import type { JobResult } from '@xsb/eval';
import { computeMetrics, joinIncludedProbes, readEvaluationInputs, systemIdFor } from '@xsb/metrics';
import type { BenchRow, BenchRowDesign, BenchRowRubric } from '../schemas/bench-row';
import type { BenchSplitName } from '../schemas/bench-split';
import type { BenchCase } from '../splits/bench-cases';

const dataRelative = (dataDir: string, file: string) => relative(dataDir, file).split(sep).join('/');

export interface RowContext {
  dataDir: string;
  configuration: string;
  tauA: number;
  benchCase: BenchCase;
  split: BenchSplitName;
}

/**
 * One per_row.jsonl row from an evaluation job: stage 6 recomputed from the job folder at the
 * configuration's tau_a (so configurations sharing a folder can differ in tau_a), the included probes'
 * coverage as McNemar units, the rubric result and the deck's design metrics. A failed job is a row with its error.
 */
export async function benchRowFor(
  result: JobResult,
  context: RowContext,
  deck: { rubric: () => Promise<BenchRowRubric | null>; design: () => Promise<BenchRowDesign | null> },
): Promise<BenchRow> {
  const { job } = result;
  const base = {
    configuration: context.configuration,
    case: job.caseLabel,
    audience: job.audience,
    system_id: systemIdFor(job.system, job.condition),
    system: job.system,
    condition: job.condition,
    split: context.split,
    scene: context.benchCase.scene,
    language: context.benchCase.language,
    deck: dataRelative(context.dataDir, job.deckFile),
    evaluation_dir: dataRelative(context.dataDir, result.evaluationDir),
  };
  if (result.outcome === 'failed')
    return {
      ...base,
      metrics: null,
      units: null,
      rubric: null,
      design: null,
      error: result.error ?? 'failed',
    };
  const inputs = await readEvaluationInputs(result.evaluationDir);
  const metrics = computeMetrics({ ...inputs, tauA: context.tauA });
  const { included } = joinIncludedProbes({ ...inputs, tauA: context.tauA });
  return {
    ...base,
    metrics: {
      coverage: metrics.coverage,
      efficiency_time: metrics.efficiency_time,
      efficiency_slide: metrics.efficiency_slide,
      efficiency_word: metrics.efficiency_word ?? null,
      correctness: metrics.correctness ?? null,
      safe_efficiency_time: metrics.safe_efficiency_time ?? null,
      included_probe_count: metrics.included_probe_count,
    },
    units: {
      probes: Object.fromEntries(
        included.map((entry) => [entry.probe.probe_id, entry.score?.covered === true]),
      ),
    },
    rubric: await deck.rubric(),
    design: await deck.design(),
    error: null,
  };
}

/** A row for a deck folder that failed before it became a job (no deck, unreadable metadata, …). */
export function discoveryErrorRow(
  where: { system: string; condition: string; audience: string; caseLabel: string; deck: string | null },
  context: RowContext,
  error: string,
): BenchRow {
  return {
    configuration: context.configuration,
    case: where.caseLabel,
    audience: where.audience,
    system_id: systemIdFor(where.system, where.condition),
    system: where.system,
    condition: where.condition,
    split: context.split,
    scene: context.benchCase.scene,
    language: context.benchCase.language,
    deck: where.deck,
    metrics: null,
    units: null,
    rubric: null,
    design: null,
    evaluation_dir: null,
    error,
  };
}

import { resolve } from 'node:path';
import { compareCodePoints, hashCanonicalJson, type Remedy, UsageError, validateRecord } from '@xsb/core';
import { isRubricMetric } from '../bench-metrics';
import { benchLayoutOfRunDir, readBenchRun } from '../run/bench-run-files';
import type { BenchRow } from '../schemas/bench-row';
import type { BenchRun } from '../schemas/bench-run';
import { type BenchRunsComparison, benchRunsComparisonSchema } from '../schemas/bench-summary';
import { type AnchorStanding, anchorStandings, DEFAULT_MIN_KAPPA } from './anchor-checks';
import { applyHolm, compareSides } from './compare-rows';
import { presentMetrics } from './summarize-rows';

export interface CompareRunsOptions {
  /** Kappa each judge's anchor check must reach when the runs' judges differ (default 0.8). */
  minKappa?: number;
}

type ComparedJudge = BenchRunsComparison['configurations'][number]['judge_a'];

function judgeOf(run: BenchRun, configuration: string): ComparedJudge {
  const id = run.configurations.find((c) => c.name === configuration)!.settings.judge;
  const record = run.judges.find((judge) => judge.id === id);
  return { id, model_label: record?.model_label ?? null };
}

const sameJudge = (a: ComparedJudge, b: ComparedJudge) => a.id === b.id && a.model_label === b.model_label;
const describeJudge = (judge: ComparedJudge) =>
  judge.model_label ? `${judge.id} (model ${judge.model_label})` : judge.id;

/** Setting keys (other than the judge) whose values differ between the two runs' configurations. */
function settingsDiffer(a: BenchRun, b: BenchRun, name: string): string[] {
  const left = a.configurations.find((c) => c.name === name)!.settings as Record<string, unknown>;
  const right = b.configurations.find((c) => c.name === name)!.settings as Record<string, unknown>;
  return [...new Set([...Object.keys(left), ...Object.keys(right)])]
    .filter(
      (key) =>
        key !== 'judge' && hashCanonicalJson(left[key] ?? null) !== hashCanonicalJson(right[key] ?? null),
    )
    .sort(compareCodePoints);
}

function inputsDiffer(a: BenchRun, b: BenchRun): BenchRunsComparison['inputs_differ'] {
  const count = (kind: 'probe_banks' | 'weights' | 'decks' | 'rubric_instances') =>
    Object.entries(a.digests[kind]).filter(([path, sha]) => {
      const other = b.digests[kind][path];
      return other !== undefined && other !== sha;
    }).length;
  return {
    probe_banks: count('probe_banks'),
    weights: count('weights'),
    decks: count('decks'),
    rubric_instances: count('rubric_instances'),
  };
}

interface JudgePair {
  a: ComparedJudge;
  b: ComparedJudge;
}

/**
 * An anchor set on which both judges of every differing pair passed at `minKappa` (with rubric
 * verdicts among the checked items when rubric metrics are compared), searched in the data folders
 * of both runs; or a usage error that names each judge, its standing and the step that helps.
 */
async function requireAnchors(
  pairs: readonly JudgePair[],
  dataDirs: readonly string[],
  minKappa: number,
  rubric: boolean,
): Promise<BenchRunsComparison['anchor']> {
  const judges = [...new Map(pairs.flatMap((pair) => [pair.a, pair.b]).map((j) => [j.id, j])).values()];
  const standings = new Map<string, Array<AnchorStanding & { data_dir: string }>>();
  for (const judge of judges) {
    const all: Array<AnchorStanding & { data_dir: string }> = [];
    for (const dataDir of dataDirs)
      for (const standing of await anchorStandings(dataDir, judge.id, minKappa))
        all.push({ ...standing, data_dir: dataDir });
    standings.set(judge.id, all);
  }
  const usable = (standing: AnchorStanding) => standing.passed && (!rubric || standing.rubric_items > 0);
  const setKey = (standing: { data_dir: string; anchor_set: string }) =>
    `${standing.data_dir}\u0000${standing.anchor_set}`;
  const candidates = [...new Set(judges.flatMap((judge) => standings.get(judge.id)!.map(setKey)))].sort(
    compareCodePoints,
  );
  for (const key of candidates) {
    const chosen = judges.map((judge) => standings.get(judge.id)!.find((s) => setKey(s) === key));
    if (chosen.every((standing) => standing !== undefined && usable(standing))) {
      const first = chosen[0]!;
      return {
        anchor_set: first.anchor_set,
        data_dir: first.data_dir,
        judges: chosen.map((standing, i) => ({
          judge: judges[i]!.id,
          froze: standing!.froze,
          kappa: standing!.kappa,
          n: standing!.n,
          rubric_items: standing!.rubric_items,
        })),
      };
    }
  }
  const lines = judges.map((judge) => {
    const mine = standings.get(judge.id)!;
    if (mine.length === 0) return `  - ${describeJudge(judge)}: no anchor check`;
    const parts = mine.map((standing) => {
      const kappa = standing.froze
        ? 'froze it'
        : `kappa ${standing.kappa === null ? 'undefined' : standing.kappa.toFixed(3)} over ${standing.n} items`;
      const rubricNote = rubric && standing.rubric_items === 0 ? ', no rubric verdicts' : '';
      return `anchor set "${standing.anchor_set}": ${kappa}${rubricNote} (${usable(standing) ? 'passes' : 'does not pass'})`;
    });
    return `  - ${describeJudge(judge)}: ${parts.join('; ')}`;
  });
  const pairsText = pairs.map((pair) => `${describeJudge(pair.a)} vs ${describeJudge(pair.b)}`).join(', ');
  throw new UsageError(
    [
      `the two runs were judged by different judges (${pairsText}): their numbers are comparable only if both judges pass an anchor check at kappa >= ${minKappa} on the same anchor set${rubric ? ', with rubric verdicts among its items (the runs carry rubric scores)' : ''}, and they do not:`,
      ...lines,
      `freeze an anchor set if there is none${rubric ? ' (from a run whose decks have rubric evaluations by its judge)' : ''}, check each judge against it, or lower the minimum kappa`,
    ].join('\n'),
    { remedy: anchorRemedy(judges, standings, usable, dataDirs[0]) },
  );
}

/**
 * The next step: check the first judge that does not pass. Checking before freezing because a set may exist
 * already; without one, the check's own error says to freeze one.
 */
function anchorRemedy(
  judges: readonly ComparedJudge[],
  standings: ReadonlyMap<string, readonly AnchorStanding[]>,
  usable: (standing: AnchorStanding) => boolean,
  dataDir: string | undefined,
): Remedy {
  const failing = judges.find((judge) => !standings.get(judge.id)?.some(usable)) ?? judges[0];
  return { step: 'anchor-check', dataDir, judge: failing?.id };
}

/**
 * `xsb bench compare --run A --run B`: every (configuration, system) both runs recorded, B − A paired
 * over the (case, audience) units — rubric metrics: the cases — both runs have, with the bench's
 * statistics (cluster bootstrap, exact McNemar, Holm over this comparison, verdicts, diag, MDE) at run
 * A's bootstrap settings. Refused (usage error, nothing computed) when a configuration's judges differ
 * (judge id or replay model label) and no anchor set shows both judges agreeing at `minKappa`.
 */
export async function compareBenchRuns(
  dirA: string,
  dirB: string,
  options: CompareRunsOptions = {},
): Promise<BenchRunsComparison> {
  const minKappa = options.minKappa ?? DEFAULT_MIN_KAPPA;
  const [a, b] = [await readBenchRun(dirA), await readBenchRun(dirB)];
  if (a.run.run_id === b.run.run_id && resolve(dirA) === resolve(dirB))
    throw new UsageError('the two runs are the same folder; pass two different bench runs');
  const configurations = a.run.configurations
    .map((c) => c.name)
    .filter((name) => b.run.configurations.some((c) => c.name === name));
  const systems = a.run.systems.filter((system) => b.run.systems.includes(system));
  if (configurations.length === 0 || systems.length === 0)
    throw new UsageError(
      `runs ${a.run.run_id} and ${b.run.run_id} share no (configuration, system): A has configurations ${a.run.configurations.map((c) => c.name).join(', ')} and systems ${a.run.systems.join(', ')}; B has ${b.run.configurations.map((c) => c.name).join(', ')} and ${b.run.systems.join(', ')}`,
    );
  const described = configurations.map((name) => {
    const judgeA = judgeOf(a.run, name);
    const judgeB = judgeOf(b.run, name);
    return {
      name,
      judge_a: judgeA,
      judge_b: judgeB,
      judges_differ: !sameJudge(judgeA, judgeB),
      settings_differ: settingsDiffer(a.run, b.run, name),
    };
  });
  const selected = (rows: readonly BenchRow[]) =>
    rows.filter((row) => configurations.includes(row.configuration) && systems.includes(row.system_id));
  const rowsA = selected(a.rows);
  const rowsB = selected(b.rows);
  const differing = described.filter((c) => c.judges_differ);
  const rubric = presentMetrics([...rowsA, ...rowsB]).some(isRubricMetric);
  const anchor =
    differing.length === 0
      ? null
      : await requireAnchors(
          differing.map((c) => ({ a: c.judge_a, b: c.judge_b })),
          [...new Set([benchLayoutOfRunDir(dirA).dataDir, benchLayoutOfRunDir(dirB).dataDir])],
          minKappa,
          rubric,
        );
  const stats = {
    seed: a.run.bootstrap.seed,
    resamples: a.run.bootstrap.resamples,
    confidence: a.run.bootstrap.confidence,
    diagBelow: a.run.diag_below,
  };
  const comparisons: BenchRunsComparison['comparisons'] = [];
  for (const configuration of configurations)
    for (const system of systems) {
      const side = (rows: readonly BenchRow[]) =>
        rows.filter((row) => row.configuration === configuration && row.system_id === system);
      const seedKey = `${a.run.run_id}|${configuration}|${system}|${b.run.run_id}|${configuration}|${system}`;
      for (const comparison of compareSides(side(rowsA), side(rowsB), seedKey, stats))
        comparisons.push({ configuration, system_id: system, ...comparison });
    }
  applyHolm(comparisons);
  const sideOf = (record: BenchRun) => ({
    run_id: record.run_id,
    pipeline_run: record.pipeline_run,
    split: record.split,
    status: record.status,
    cases: record.cases.length,
  });
  return validateRecord(benchRunsComparisonSchema, {
    a: sideOf(a.run),
    b: sideOf(b.run),
    configurations: described,
    systems,
    inputs_differ: inputsDiffer(a.run, b.run),
    min_kappa: minKappa,
    anchor,
    bootstrap: { seed: stats.seed, resamples: stats.resamples, confidence: stats.confidence },
    comparisons,
  });
}

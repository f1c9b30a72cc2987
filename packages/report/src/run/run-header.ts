import { dirname, relative } from 'node:path';
import { BenchLayout, benchJudgeInfo, countTestLedger, readGitState, readSplits } from '@xsb/bench';
import {
  compareCodePoints,
  emptyProbeBankNote,
  listEmptyProbeBanks,
  type MissingJob,
  RunLayout,
} from '@xsb/core';
import { z } from 'zod';
import type { RunReportData } from './read-run-report-data';

export const OFFLINE_JUDGE_WARNING =
  'Offline judge: `lexical` numbers are a smoke test of the pipeline; they do not rank real systems.';

export interface JudgeFact {
  stage: string;
  id: string;
  kind: string;
  model: string | null;
  replayStore: string | null;
}

export interface RunHeader {
  judges: JudgeFact[];
  offlineWarning: string | null;
  /** "What was measured". */
  facts: Array<[string, string]>;
}

/** Stage 7 does not record git yet: the report then reads it itself. */
const recordedGitSchema = z.looseObject({
  git: z.looseObject({ sha: z.string().nullable(), dirty: z.boolean().nullable().optional() }),
});

export function judgeFact(stage: string, id: string): JudgeFact {
  const offline = id === 'lexical';
  const [provider, ...rest] = id.split(':');
  const replay = provider === 'replay' || provider === 'record';
  let model: string | null = offline ? null : replay ? null : rest.join(':') || null;
  if (replay) {
    try {
      model = benchJudgeInfo(id).model_label;
    } catch {
      model = null; // the store is not reachable from here; its path is still shown
    }
  }
  return {
    stage,
    id,
    kind: offline ? 'offline' : replay ? (provider as string) : 'model',
    model,
    replayStore: replay ? rest.join(':') : null,
  };
}

export function describeJudge(judge: JudgeFact): string {
  let detail: string;
  if (judge.kind === 'offline') detail = 'offline, no model: deterministic';
  else if (judge.replayStore !== null)
    detail = `${judge.kind}, model ${judge.model ?? 'unknown (the store is not readable here)'}, replay store ${judge.replayStore}`;
  else detail = `model ${judge.model ?? 'unknown'}, called live`;
  return `${judge.stage}: ${judge.id} (${detail})`;
}

export function describeGit(git: {
  sha: string | null;
  dirty: boolean | null;
  atReportTime: boolean;
}): string {
  return `${git.sha ?? 'not in a git repository'}${git.dirty ? ' (dirty)' : ''}${git.atReportTime ? ' — read when this report was built; the results do not record it' : ''}`;
}

function describeMissingJob(job: MissingJob): string {
  const who = [job.system, job.condition, job.audience, job.case_label].filter((part) => part !== null);
  return `${who.join(' / ') || job.where}: ${job.status} (${job.reason})`;
}

export async function readRunHeader(data: RunReportData): Promise<RunHeader> {
  const { summary } = data;
  const judges = new Map<string, JudgeFact>();
  for (const { stage, id, kind, ...judge } of summary.judges) {
    const model = judge.model ?? judge.model_label ?? null;
    judges.set(`${stage} ${id}`, { stage, id, kind, model, replayStore: judge.replay_store ?? null });
  }
  // Rows that record no judge (compact files): their evaluation folders may still name one.
  if (summary.rows_without_judges > 0)
    for (const evaluation of data.evaluations)
      for (const [stage, id] of Object.entries(evaluation.manifest?.judges ?? {}))
        if (!judges.has(`${stage} ${id}`)) judges.set(`${stage} ${id}`, judgeFact(stage, id));
  const recorded = recordedGitSchema.safeParse(summary);
  const git = recorded.success
    ? { sha: recorded.data.git.sha, dirty: recorded.data.git.dirty ?? null, atReportTime: false }
    : { ...readGitState([data.dataDir, dirname(data.dataDir)]), atReportTime: true };
  const benchLayout = new BenchLayout(data.dataDir);
  const splits = await readSplits(benchLayout).catch(() => []);
  const cases = [...new Set(summary.rows.map((row) => row.case_label))];
  let split = `no stored split (${cases.length} cases, all used)`;
  if (splits.length > 0) {
    const of = new Map(splits.map((row) => [row.case, row.split]));
    const dev = cases.filter((c) => of.get(c) === 'dev').length;
    const test = cases.filter((c) => of.get(c) === 'test').length;
    split = `${cases.length} cases: dev ${dev}, test ${test}, not in the stored split ${cases.length - dev - test} (a pipeline run uses every case; the bench keeps test sealed)`;
  }
  const sortedJudges = [...judges.values()].sort(
    (a, b) => compareCodePoints(a.stage, b.stage) || compareCodePoints(a.id, b.id),
  );
  const { bootstrap } = summary;
  const offline = summary.offline_judges || sortedJudges.some((judge) => judge.kind === 'offline');
  const missingJobs = (summary.missing_jobs ?? []).map(describeMissingJob);
  // A summary of an older version does not list them: the data folder is asked instead.
  const emptyProbeBanks = (
    summary.empty_probe_banks ?? (await listEmptyProbeBanks(new RunLayout(data.dataDir), cases))
  ).map(emptyProbeBankNote);
  const languageNotes = summary.probe_language_notes ?? [];
  const facts: Array<[string, string] | false> = [
    ['run', data.run],
    // Relative to the data folder: the same run reported in two places gives the same bytes.
    ['summary', `${relative(data.dataDir, data.summaryFile)} (paths relative to the data folder)`],
    ['judges', sortedJudges.length === 0 ? 'none recorded' : sortedJudges.map(describeJudge).join('; ')],
    ['tau_a', summary.tau_a.length === 0 ? 'unknown' : summary.tau_a.join(', ')],
    ['rows', `${summary.row_count} (system, audience, case) evaluations`],
    [
      'intervals',
      `${Math.round(bootstrap.confidence * 100)}% ${bootstrap.method}, seed ${bootstrap.seed}, ${bootstrap.resamples} resamples`,
    ],
    ['git', describeGit(git)],
    ['split', split],
    [
      'test-split openings',
      `${await countTestLedger(benchLayout.testLedgerFile())} (bench/test_ledger.jsonl)`,
    ],
    [
      'thin groups',
      `marked "thin": the median deck of the group has fewer than ${summary.thin_below} included probes (weight ≥ tau_a), as summary.json decides`,
    ],
    missingJobs.length > 0 && ['missing jobs', `${missingJobs.length}: ${missingJobs.join('; ')}`],
    emptyProbeBanks.length > 0 && ['empty probe banks', emptyProbeBanks.join('; ')],
    languageNotes.length > 0 && ['probe question language', languageNotes.join('; ')],
  ];
  return {
    judges: sortedJudges,
    offlineWarning: offline ? (summary.offline_warning ?? OFFLINE_JUDGE_WARNING) : null,
    facts: facts.filter((fact) => fact !== false),
  };
}

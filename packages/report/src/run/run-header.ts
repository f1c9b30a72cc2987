import { dirname } from 'node:path';
import { BenchLayout, benchJudgeInfo, countTestLedger, readGitState, readSplits } from '@xsb/bench';
import { compareCodePoints } from '@xsb/core';
import { z } from 'zod';
import type { RunReportData } from './read-run-report-data';

/** The sentence every report shows where an offline judge's numbers appear. */
export const OFFLINE_JUDGE_WARNING =
  'Offline judge: `lexical` numbers are a smoke test of the pipeline; they do not rank real systems.';

export interface JudgeFact {
  stage: string;
  id: string;
  kind: string;
  model: string | null;
  replayStore: string | null;
  offline: boolean;
}

export interface RunHeader {
  judges: JudgeFact[];
  tauA: number[];
  git: { sha: string | null; dirty: boolean | null; atReportTime: boolean };
  split: string;
  testOpenings: number;
  bootstrap: string;
  offlineWarning: string | null;
  missingJobs: string[];
}

/**
 * Fields other stages may add to summary.json (judges, tau_a, git, missing jobs, an offline-judge
 * sentence). Read when present and well-formed; otherwise the header falls back to what the
 * evaluation folders record, so a summary of any age gets a header.
 */
const summaryExtrasSchema = z.looseObject({
  judges: z
    .array(
      z.looseObject({
        stage: z.string(),
        id: z.string(),
        kind: z.string().optional(),
        model: z.string().nullish(),
        replay_store: z.string().nullish(),
        model_label: z.string().nullish(),
      }),
    )
    .optional(),
  tau_a: z.number().optional(),
  git: z.looseObject({ sha: z.string().nullable(), dirty: z.boolean().nullable().optional() }).optional(),
  missing_jobs: z.array(z.unknown()).optional(),
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
    offline,
  };
}

function describeMissingJob(job: unknown): string {
  if (typeof job === 'string') return job;
  if (job && typeof job === 'object')
    return Object.entries(job as Record<string, unknown>)
      .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
      .join(', ');
  return String(job);
}

/** What the run measured, from the summary's own fields where it has them, else from the evaluations. */
export async function readRunHeader(data: RunReportData): Promise<RunHeader> {
  const parsed = summaryExtrasSchema.safeParse(data.summary);
  const extras = parsed.success ? parsed.data : {};
  const judges = new Map<string, JudgeFact>();
  if (extras.judges && extras.judges.length > 0) {
    for (const judge of extras.judges) {
      const fact = judgeFact(judge.stage, judge.id);
      judges.set(`${judge.stage} ${judge.id}`, {
        ...fact,
        kind: judge.kind ?? fact.kind,
        model: judge.model ?? judge.model_label ?? fact.model,
        replayStore: judge.replay_store ?? fact.replayStore,
      });
    }
  } else {
    for (const evaluation of data.evaluations)
      for (const [stage, id] of Object.entries(evaluation.manifest?.judges ?? {}))
        if (!judges.has(`${stage} ${id}`)) judges.set(`${stage} ${id}`, judgeFact(stage, id));
  }
  const tauA =
    extras.tau_a !== undefined
      ? [extras.tau_a]
      : [...new Set(data.evaluations.flatMap((e) => (e.metrics ? [e.metrics.tau_a] : [])))].sort(
          (a, b) => a - b,
        );
  const recordedGit = extras.git;
  const git = recordedGit
    ? { sha: recordedGit.sha, dirty: recordedGit.dirty ?? null, atReportTime: false }
    : { ...readGitState([data.dataDir, dirname(data.dataDir)]), atReportTime: true };
  const benchLayout = new BenchLayout(data.dataDir);
  const splits = await readSplits(benchLayout).catch(() => []);
  const cases = [...new Set(data.summary.rows.map((row) => row.case_label))];
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
  const offlineSentence = Object.entries(data.summary).find(
    ([key, value]) => /offline/i.test(key) && typeof value === 'string',
  )?.[1] as string | undefined;
  const bootstrap = data.summary.bootstrap;
  return {
    judges: sortedJudges,
    tauA,
    git,
    split,
    testOpenings: await countTestLedger(benchLayout.testLedgerFile()),
    bootstrap: `${Math.round(bootstrap.confidence * 100)}% ${bootstrap.method}, seed ${bootstrap.seed}, ${bootstrap.resamples} resamples`,
    offlineWarning: sortedJudges.some((judge) => judge.offline)
      ? (offlineSentence ?? OFFLINE_JUDGE_WARNING)
      : null,
    missingJobs: (extras.missing_jobs ?? []).map(describeMissingJob),
  };
}

import type { LazyCommandModule } from '../command-module';

/** A group of one top-level command, named like it. */
const single = (name: string, description: string, load: LazyCommandModule['load']): LazyCommandModule => ({
  name,
  commands: [{ name, description }],
  load,
});

/** Every group in `--help` order; each loads on use, so `xsb eval` never imports the other groups' code. */
export const commandModules: LazyCommandModule[] = [
  single(
    'demo',
    'run stages 1-7 on the shipped fixtures (3 cases, 3 audiences, baseline + imported decks)',
    async () => (await import('./demo-command')).demoCommand,
  ),
  single(
    'fixtures',
    "copy the fixtures xsb ships (demo sources and decks, replay store, bench cases, rubric instances) into ./fixtures, so the docs' examples run as written",
    async () => (await import('./fixtures-command')).fixturesCommand,
  ),
  single(
    'sources',
    'stage 1: extract the text of every case under <data>/sources/ into <data>/probes/<case>/source_context.txt',
    async () => (await import('./sources-command')).sourcesCommand,
  ),
  single(
    'probes',
    'stage 2: build <data>/probes/<case>/probes_deduped.jsonl for every case under <data>/sources/',
    async () => (await import('./probes-command')).probesCommand,
  ),
  single(
    'weights',
    'stage 3: write <data>/probes/<case>/weights/<audience>.jsonl for every case and audience',
    async () => (await import('./weights-command')).weightsCommand,
  ),
  single(
    'decks',
    'stage 4: read, generate, import and render slide decks',
    async () => (await import('./decks-command')).decksCommand,
  ),
  single(
    'eval',
    'stage 5: judge every deck of a run (answerability + correctness) and write metrics per job',
    async () => (await import('./eval-command')).evalCommand,
  ),
  {
    name: 'metrics',
    commands: [
      {
        name: 'metrics',
        description: 'stage 6: recompute metrics.json of every finished evaluation of a run (no judge calls)',
      },
      {
        name: 'aggregate',
        description:
          'stage 7: mean and bootstrap 95% interval per (system, audience) into summary.json/csv and report.md',
      },
    ],
    load: async () => (await import('./metrics-command')).metricsCommand,
  },
  single(
    'rubric',
    'PresentBench-compatible checklist evaluation of decks',
    async () => (await import('./rubric-command')).rubricCommand,
  ),
  single(
    'design',
    'design metrics from the rendered slides, no judge (contrast, colour, harmony, complexity, whitespace, balance; against a reference deck)',
    async () => (await import('./design-command')).designCommand,
  ),
  {
    name: 'study',
    commands: [
      {
        name: 'study',
        description: 'a blind human ranking study of decks, and every evaluator measured against it',
      },
      {
        name: 'rank',
        description:
          "the ranking judge: a judge ranks each case's decks in k rotated orders (Borda), or every pair both ways (--pairwise: Bradley–Terry, swap disagreement)",
      },
    ],
    load: async () => (await import('./study/study-command')).studyCommand,
  },
  single(
    'bench',
    'stored dev/test splits, run records, paired comparisons, configurations (spec 002)',
    async () => (await import('./bench/bench-command')).benchCommand,
  ),
  single(
    'merge',
    'combine the data folders of --shard i/n runs into one, identical to the unsharded run (docs/ci-matrix.md)',
    async () => (await import('./merge-command')).mergeCommand,
  ),
  single(
    'meta',
    'meta-evaluation: perturb decks, measure each evaluator’s sensitivity, judge agreement and drift anchors',
    async () => (await import('./meta/index')).metaCommand,
  ),
  single(
    'plan',
    'print what a command would spend, without calling any model: calls, tokens and cost per stage (online, with prompt caching, batch)',
    async () => (await import('./plan-command')).planCommand,
  ),
  single(
    'usage',
    "a run's judge calls, tokens and cost; with --plan, reconciled against an `xsb plan` (exit 1 when an exact row is off)",
    async () => (await import('./usage-command')).usageCommand,
  ),
  single(
    'report',
    'write one self-contained HTML report (plots, tables, slide drill-down) of a run, bench run or rubric results',
    async () => (await import('./report-command')).reportCommand,
  ),
  single(
    'view',
    'serve an index of every run, bench run and rubric result under the data folder, with their HTML reports (127.0.0.1 only)',
    async () => (await import('./view-command')).viewCommand,
  ),
  single(
    'serve',
    'the HTTP API: post decks, get scores back from durable jobs (docs/api.md)',
    async () => (await import('./serve-command')).serveCommand,
  ),
  single(
    'worker',
    'run queued API jobs without serving HTTP (several machines: --queue redis://HOST:PORT)',
    async () => (await import('./worker-command')).workerCommand,
  ),
  single(
    'llm',
    'check a model judge, manage the answer cache, sum token usage',
    async () => (await import('./llm-command')).llmCommand,
  ),
  single(
    'config',
    'inspect the effective configuration',
    async () => (await import('./config-command')).configCommand,
  ),
];

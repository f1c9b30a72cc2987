import type { LazyCommandModule } from '../command-module';

/**
 * Every subcommand group of `xsb`, in the order `--help` lists them: the main job, the stages in
 * pipeline order, then tools. Each loads on use, so `xsb --help` (or `xsb eval`) never imports the
 * PDF, LibreOffice or model code of the other groups; tsup keeps each in its own chunk.
 */
export const commandModules: LazyCommandModule[] = [
  {
    name: 'demo',
    commands: [
      {
        name: 'demo',
        description:
          'run stages 1-7 on the shipped fixtures (3 cases, 3 audiences, baseline + imported decks)',
      },
    ],
    load: async () => (await import('./demo-command')).demoCommand,
  },
  {
    name: 'sources',
    commands: [
      {
        name: 'sources',
        description:
          'stage 1: extract the text of every case under <data>/sources/ into <data>/probes/<case>/source_context.txt',
      },
    ],
    load: async () => (await import('./sources-command')).sourcesCommand,
  },
  {
    name: 'probes',
    commands: [
      {
        name: 'probes',
        description:
          'stage 2: build <data>/probes/<case>/probes_deduped.jsonl for every case under <data>/sources/',
      },
    ],
    load: async () => (await import('./probes-command')).probesCommand,
  },
  {
    name: 'weights',
    commands: [
      {
        name: 'weights',
        description:
          'stage 3: write <data>/probes/<case>/weights/<audience>.jsonl for every case and audience',
      },
    ],
    load: async () => (await import('./weights-command')).weightsCommand,
  },
  {
    name: 'decks',
    commands: [{ name: 'decks', description: 'stage 4: read, generate, import and render slide decks' }],
    load: async () => (await import('./decks-command')).decksCommand,
  },
  {
    name: 'eval',
    commands: [
      {
        name: 'eval',
        description:
          'stage 5: judge every deck of a run (answerability + correctness) and write metrics per job',
      },
    ],
    load: async () => (await import('./eval-command')).evalCommand,
  },
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
  {
    name: 'rubric',
    commands: [{ name: 'rubric', description: 'PresentBench-compatible checklist evaluation of decks' }],
    load: async () => (await import('./rubric-command')).rubricCommand,
  },
  {
    name: 'bench',
    commands: [
      {
        name: 'bench',
        description: 'stored dev/test splits, run records, paired comparisons, configurations (spec 002)',
      },
    ],
    load: async () => (await import('./bench/bench-command')).benchCommand,
  },
  {
    name: 'merge',
    commands: [
      {
        name: 'merge',
        description:
          'combine the data folders of --shard i/n runs into one, identical to the unsharded run (docs/ci-matrix.md)',
      },
    ],
    load: async () => (await import('./merge-command')).mergeCommand,
  },
  {
    name: 'meta',
    commands: [
      {
        name: 'meta',
        description:
          'meta-evaluation: perturb decks, measure each evaluator’s sensitivity, judge agreement and drift anchors',
      },
    ],
    load: async () => (await import('./meta/index')).metaCommand,
  },
  {
    name: 'plan',
    commands: [
      {
        name: 'plan',
        description:
          'print what a command would spend, without calling any model: calls, tokens and cost per stage (online, with prompt caching, batch)',
      },
    ],
    load: async () => (await import('./plan-command')).planCommand,
  },
  {
    name: 'usage',
    commands: [
      {
        name: 'usage',
        description:
          "a run's judge calls, tokens and cost; with --plan, reconciled against an `xsb plan` (exit 1 when an exact row is off)",
      },
    ],
    load: async () => (await import('./usage-command')).usageCommand,
  },
  {
    name: 'report',
    commands: [
      {
        name: 'report',
        description:
          'write one self-contained HTML report (plots, tables, slide drill-down) of a run, bench run or rubric results',
      },
    ],
    load: async () => (await import('./report-command')).reportCommand,
  },
  {
    name: 'view',
    commands: [
      {
        name: 'view',
        description:
          'serve an index of every run, bench run and rubric result under the data folder, with their HTML reports (127.0.0.1 only)',
      },
    ],
    load: async () => (await import('./view-command')).viewCommand,
  },
  {
    name: 'serve',
    commands: [
      {
        name: 'serve',
        description: 'the HTTP API: post decks, get scores back from durable jobs (docs/api.md)',
      },
    ],
    load: async () => (await import('./serve-command')).serveCommand,
  },
  {
    name: 'worker',
    commands: [
      {
        name: 'worker',
        description: 'run queued API jobs without serving HTTP (several machines: --queue redis://HOST:PORT)',
      },
    ],
    load: async () => (await import('./worker-command')).workerCommand,
  },
  {
    name: 'llm',
    commands: [{ name: 'llm', description: 'check a model judge, manage the answer cache, sum token usage' }],
    load: async () => (await import('./llm-command')).llmCommand,
  },
  {
    name: 'config',
    commands: [{ name: 'config', description: 'inspect the effective configuration' }],
    load: async () => (await import('./config-command')).configCommand,
  },
];

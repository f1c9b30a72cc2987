import { resolve } from 'node:path';
import { plural, RunLayout, UsageError } from '@xsb/core';
import { DEFAULT_BATCH_SIZE } from '@xsb/eval';
import { describeJudge, fillLabelFor } from '@xsb/llm';
import { planDemo, planEval, planFill, planProbes, planRubric, planRubricDeck, planWeights } from '@xsb/plan';
import { loadInstanceAt } from '@xsb/rubric';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import {
  discoverSelectedCases,
  integerFlag,
  parseTauA,
  requireDeckFolder,
  requireExistingPath,
  rowFilters,
  sourceOptionsFor,
} from '../cli-options';
import type { CommandModule } from '../command-module';
import { locateFixtures } from '../shipped-fixtures';
import { demoCommand } from './demo-command';
import { evalCommand } from './eval-command';
import { llmCommand } from './llm-command';
import { registerPlan, shardFilter } from './plan-command-shared';
import { probeSettings, probesCommand } from './probes-command';
import { judgingOptions } from './rubric/rubric-flags';
import { rubricCommand } from './rubric-command';
import { studyCommand } from './study/study-command';
import { audienceProfiles, weightSettings, weightsCommand } from './weights-command';

function registerPlanEval(plan: Command, context: CliContext): void {
  registerPlan(plan, context, evalCommand, ['eval'], async (flags, load) => {
    parseTauA(flags.tauA as string | undefined);
    const batchSize = integerFlag('--batch-size', flags.batchSize, DEFAULT_BATCH_SIZE, 1);
    const { config, builder } = load();
    const dataDir = resolve(context.io.cwd, config.dataDir);
    requireDeckFolder(new RunLayout(dataDir), config.run);
    await planEval(builder, {
      dataDir,
      run: config.run,
      batchSize,
      ...(typeof flags.correctnessCacheDir === 'string'
        ? { correctnessCacheDir: resolve(context.io.cwd, flags.correctnessCacheDir) }
        : {}),
      force: Boolean(flags.force),
      filters: rowFilters(flags),
      include: shardFilter(flags),
    });
  });
}

function registerPlanLlmFill(plan: Command, context: CliContext): void {
  const llm = plan.command('llm').description('plan `xsb llm fill`');
  registerPlan(
    llm,
    context,
    llmCommand,
    ['llm', 'fill'],
    async (flags, load) => {
      fillLabelFor(flags.judge as string); // the judges `xsb llm fill` takes, refused as it refuses them
      const { builder } = load();
      const store = resolve(context.io.cwd, flags.store as string);
      const result = await planFill(builder, { store });
      builder.note(
        `${store}: ${plural(result.pending, 'pending prompt')}, ${result.pending - result.alreadyStored - result.unusable} to send`,
      );
      return typeof flags.ledger === 'string' ? { ledgerFile: resolve(context.io.cwd, flags.ledger) } : {};
    },
    ' (the prompts a record run left that the store lacks)',
  );
}

function registerPlanRubric(plan: Command, context: CliContext): void {
  const rubric = plan.command('rubric').description('plan `xsb rubric run` or `xsb rubric eval`');
  registerPlanRubricEval(rubric, context);
  registerPlan(rubric, context, rubricCommand, ['rubric', 'run'], async (flags, load) => {
    const { concurrency: _concurrency, ...decided } = judgingOptions(flags).judging;
    const instancesDir = requireExistingPath(
      '--instances',
      resolve(context.io.cwd, flags.instances as string),
    );
    const resultsDir = requireExistingPath('--results', resolve(context.io.cwd, flags.results as string));
    await planRubric(load().builder, {
      instancesDir,
      resultsDir,
      force: Boolean(flags.force),
      attachPdf: flags.attachPdf === true,
      ...decided,
      include: shardFilter(flags),
    });
  });
}

function registerPlanRubricEval(rubric: Command, context: CliContext): void {
  registerPlan(rubric, context, rubricCommand, ['rubric', 'eval'], async (flags, load) => {
    const { concurrency: _concurrency, ...decided } = judgingOptions(flags).judging;
    const instancePath = requireExistingPath('--instance', resolve(context.io.cwd, flags.instance as string));
    const deckPath = requireExistingPath('--deck', resolve(context.io.cwd, flags.deck as string));
    if (flags.attachPdf === true && !deckPath.toLowerCase().endsWith('.pdf'))
      throw new UsageError('--attach-pdf needs a PDF deck; convert the PPTX to PDF first');
    const { builder } = load();
    const instance = await loadInstanceAt(
      instancePath,
      typeof flags.dataRoot === 'string' ? resolve(context.io.cwd, flags.dataRoot) : undefined,
    );
    await planRubricDeck(builder, {
      instance,
      deckPath,
      force: Boolean(flags.force),
      attachPdf: flags.attachPdf === true,
      ...decided,
    });
  });
}

function registerPlanDemo(plan: Command, context: CliContext): void {
  registerPlan(plan, context, demoCommand, ['demo'], async (flags, load) => {
    if (flags.tauA !== undefined) parseTauA(flags.tauA as string);
    const { config, builder } = load();
    await planDemo(builder, {
      outDir: resolve(context.io.cwd, flags.out ?? 'xsb-demo'),
      ...(typeof flags.sources === 'string'
        ? { sourcesDir: requireExistingPath('sources folder', resolve(context.io.cwd, flags.sources)) }
        : { fixturesDir: locateFixtures(context.io) }),
      force: Boolean(flags.force),
    });
    // The demo keeps its own run ledger: <out>/data/runs/demo/usage_ledger.jsonl.
    return {
      run: 'demo',
      config: { ...config, dataDir: resolve(context.io.cwd, flags.out ?? 'xsb-demo', 'data') },
    };
  });
}

function registerPlanProbes(plan: Command, context: CliContext): void {
  registerPlan(plan, context, probesCommand, ['probes'], async (flags, load) => {
    const { pages, ...settings } = probeSettings(flags);
    const { config, env, builder } = load();
    const dataDir = resolve(context.io.cwd, config.dataDir);
    const { cases, failures } = await discoverSelectedCases(dataDir, flags.case);
    for (const failure of failures) builder.note(`probes ${failure.caseId}: ${failure.error.message}`);
    const inShard = shardFilter(flags);
    await planProbes(builder, {
      layout: new RunLayout(dataDir),
      cases: cases.filter((sourceCase) => inShard(sourceCase.caseId)),
      ...settings,
      sourceOptions: sourceOptionsFor(config, env, pages),
    });
  });
}

function registerPlanWeights(plan: Command, context: CliContext): void {
  registerPlan(plan, context, weightsCommand, ['weights'], async (flags, load) => {
    const settings = weightSettings(flags);
    const { config, builder } = load();
    const profiles = await audienceProfiles(context, flags);
    const wanted = flags.audience ?? [];
    const dataDir = resolve(context.io.cwd, config.dataDir);
    const { cases } = await discoverSelectedCases(dataDir, flags.case);
    const inShard = shardFilter(flags);
    // The pairs `xsb weights` weights: each case's valid audiences, or those of --audience it allows.
    const pairs = cases
      .filter((sourceCase) => inShard(sourceCase.caseId))
      .flatMap((sourceCase) =>
        (wanted.length > 0 ? wanted : sourceCase.metadata.valid_audiences)
          .filter((audience) => sourceCase.metadata.valid_audiences.includes(audience))
          .map((audience) => ({ caseLabel: sourceCase.caseId, audience })),
      );
    await planWeights(builder, { layout: new RunLayout(dataDir), pairs, profiles, ...settings });
  });
}

function registerPlanRank(plan: Command, context: CliContext): void {
  registerPlan(plan, context, studyCommand, ['rank'], async (flags, load) => {
    const k = integerFlag('--k', flags.k, 3, 1);
    const seed = integerFlag('--seed', flags.seed as string | undefined, 1, 0);
    const { config, builder } = load();
    const { planRank } = await import('@xsb/study');
    await planRank(builder, {
      dataDir: requireExistingPath('data folder', resolve(context.io.cwd, config.dataDir)),
      run: config.run,
      judge: describeJudge(config.judge),
      mode: flags.pairwise ? 'pairwise' : 'listwise',
      k,
      seed,
      ...(flags.system ? { systems: flags.system } : {}),
      ...(flags.case ? { cases: flags.case } : {}),
      ...(flags.audience ? { audiences: flags.audience } : {}),
    });
  });
}

/** `xsb plan <command> <its flags>`: the cost of a stage command before any call. */
export const planCommand: CommandModule = {
  name: 'plan',
  register(program, context) {
    const plan = program
      .command('plan')
      .description(
        'print what a command would spend, without calling any model: calls, tokens and cost per stage (online, with prompt caching, batch)',
      );
    registerPlanDemo(plan, context);
    registerPlanProbes(plan, context);
    registerPlanWeights(plan, context);
    registerPlanEval(plan, context);
    registerPlanRubric(plan, context);
    registerPlanLlmFill(plan, context);
    registerPlanRank(plan, context);
  },
};

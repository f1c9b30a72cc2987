import { resolve } from 'node:path';
import { plural, RunLayout, UsageError } from '@xsb/core';
import { DEFAULT_BATCH_SIZE } from '@xsb/eval';
import { fillLabelFor } from '@xsb/llm';
import { planDemo, planEval, planFill, planProbes, planRubric, planRubricDeck, planWeights } from '@xsb/plan';
import { loadInstanceAt } from '@xsb/rubric';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import {
  configFlags,
  discoverSelectedCases,
  integerFlag,
  parseTauA,
  requireDeckFolder,
  requireExistingPath,
  rowFilters,
} from '../cli-options';
import type { CommandModule } from '../command-module';
import { demoCommand } from './demo-command';
import { evalCommand } from './eval-command';
import { llmCommand } from './llm-command';
import {
  finishPlan,
  type PlanFlags,
  planBuilder,
  planSubcommand,
  registeredCommand,
  shardFilter,
} from './plan-command-shared';
import { probeSettings, probesCommand, sourceOptionsFor } from './probes-command';
import { judgingOptions } from './rubric/rubric-flags';
import { rubricCommand } from './rubric-command';
import { audienceProfiles, weightSettings, weightsCommand } from './weights-command';

const PLAN_NOTE = 'without calling any model: calls, tokens and cost (online, with prompt caching, batch)';

function registerPlanEval(plan: Command, context: CliContext): void {
  const real = registeredCommand(evalCommand, context, ['eval']);
  const { command, outFlag } = planSubcommand(plan, real, `plan \`xsb eval\` ${PLAN_NOTE}`);
  command.action(async (flags: PlanFlags) => {
    parseTauA(flags.tauA as string | undefined);
    const batchSize = integerFlag('--batch-size', flags.batchSize, DEFAULT_BATCH_SIZE, 1);
    const { config, env } = context.loadConfig(configFlags(flags));
    const dataDir = resolve(context.io.cwd, config.dataDir);
    requireDeckFolder(new RunLayout(dataDir), config.run);
    const builder = planBuilder(context, config, env, flags);
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
    await finishPlan(context, command, builder, { config, run: config.run, flags, outFlag });
  });
}

function registerPlanLlmFill(plan: Command, context: CliContext): void {
  const llm = plan.command('llm').description('plan `xsb llm fill`');
  const real = registeredCommand(llmCommand, context, ['llm', 'fill']);
  const { command, outFlag } = planSubcommand(
    llm,
    real,
    `plan \`xsb llm fill\` (the prompts a record run left that the store lacks) ${PLAN_NOTE}`,
  );
  command.action(async (flags: PlanFlags) => {
    fillLabelFor(flags.judge as string); // the judges `xsb llm fill` takes, refused as it refuses them
    const { config, env } = context.loadConfig(configFlags({ judge: flags.judge as string }));
    const store = resolve(context.io.cwd, flags.store as string);
    const builder = planBuilder(context, config, env, flags);
    const result = await planFill(builder, { store });
    builder.note(
      `${store}: ${plural(result.pending, 'pending prompt')}, ${result.pending - result.alreadyStored - result.unusable} to send`,
    );
    await finishPlan(context, command, builder, {
      config,
      run: config.run,
      flags,
      outFlag,
      ...(typeof flags.ledger === 'string' ? { ledgerFile: resolve(context.io.cwd, flags.ledger) } : {}),
    });
  });
}

function registerPlanRubric(plan: Command, context: CliContext): void {
  const rubric = plan.command('rubric').description('plan `xsb rubric run` or `xsb rubric eval`');
  registerPlanRubricEval(rubric, context);
  const real = registeredCommand(rubricCommand, context, ['rubric', 'run']);
  const { command, outFlag } = planSubcommand(rubric, real, `plan \`xsb rubric run\` ${PLAN_NOTE}`);
  command.action(async (flags: PlanFlags) => {
    const { judging } = judgingOptions(flags);
    const instancesDir = requireExistingPath(
      '--instances',
      resolve(context.io.cwd, flags.instances as string),
    );
    const resultsDir = requireExistingPath('--results', resolve(context.io.cwd, flags.results as string));
    const { config, env } = context.loadConfig(configFlags(flags));
    const builder = planBuilder(context, config, env, flags);
    const { concurrency: _concurrency, ...decided } = judging;
    await planRubric(builder, {
      instancesDir,
      resultsDir,
      force: Boolean(flags.force),
      attachPdf: flags.attachPdf === true,
      ...decided,
      include: shardFilter(flags),
    });
    await finishPlan(context, command, builder, { config, run: config.run, flags, outFlag });
  });
}

function registerPlanRubricEval(rubric: Command, context: CliContext): void {
  const real = registeredCommand(rubricCommand, context, ['rubric', 'eval']);
  const { command, outFlag } = planSubcommand(rubric, real, `plan \`xsb rubric eval\` ${PLAN_NOTE}`);
  command.action(async (flags: PlanFlags) => {
    const { judging } = judgingOptions(flags);
    const instancePath = requireExistingPath('--instance', resolve(context.io.cwd, flags.instance as string));
    const deckPath = requireExistingPath('--deck', resolve(context.io.cwd, flags.deck as string));
    if (flags.attachPdf === true && !deckPath.toLowerCase().endsWith('.pdf'))
      throw new UsageError('--attach-pdf needs a PDF deck; convert the PPTX to PDF first');
    const { config, env } = context.loadConfig(configFlags(flags));
    const builder = planBuilder(context, config, env, flags);
    const instance = await loadInstanceAt(
      instancePath,
      typeof flags.dataRoot === 'string' ? resolve(context.io.cwd, flags.dataRoot) : undefined,
    );
    const { concurrency: _concurrency, ...decided } = judging;
    await planRubricDeck(builder, {
      instance,
      deckPath,
      force: Boolean(flags.force),
      attachPdf: flags.attachPdf === true,
      ...decided,
    });
    await finishPlan(context, command, builder, { config, run: config.run, flags, outFlag });
  });
}

function registerPlanDemo(plan: Command, context: CliContext): void {
  const real = registeredCommand(demoCommand, context, ['demo']);
  const { command, outFlag } = planSubcommand(plan, real, `plan \`xsb demo\` ${PLAN_NOTE}`);
  command.action(async (flags: PlanFlags) => {
    if (flags.tauA !== undefined) parseTauA(flags.tauA as string);
    const { config, env } = context.loadConfig(configFlags(flags));
    const builder = planBuilder(context, config, env, flags);
    await planDemo(builder, {
      outDir: resolve(context.io.cwd, flags.out ?? 'xsb-demo'),
      ...(typeof flags.sources === 'string'
        ? { sourcesDir: requireExistingPath('sources folder', resolve(context.io.cwd, flags.sources)) }
        : {}),
      force: Boolean(flags.force),
    });
    // The demo keeps its own run ledger: <out>/data/runs/demo/usage_ledger.jsonl.
    const demoConfig = {
      ...config,
      dataDir: resolve(context.io.cwd, flags.out ?? 'xsb-demo', 'data'),
    };
    await finishPlan(context, command, builder, { config: demoConfig, run: 'demo', flags, outFlag });
  });
}

function registerPlanProbes(plan: Command, context: CliContext): void {
  const real = registeredCommand(probesCommand, context, ['probes']);
  const { command, outFlag } = planSubcommand(plan, real, `plan \`xsb probes\` ${PLAN_NOTE}`);
  command.action(async (flags: PlanFlags) => {
    const { pages, ...settings } = probeSettings(flags);
    const { config, env } = context.loadConfig(configFlags(flags));
    const dataDir = resolve(context.io.cwd, config.dataDir);
    const { cases, failures } = await discoverSelectedCases(dataDir, flags.case);
    const builder = planBuilder(context, config, env, flags);
    for (const failure of failures) builder.note(`probes ${failure.caseId}: ${failure.error.message}`);
    const inShard = shardFilter(flags);
    await planProbes(builder, {
      layout: new RunLayout(dataDir),
      cases: cases.filter((sourceCase) => inShard(sourceCase.caseId)),
      ...settings,
      sourceOptions: sourceOptionsFor(config, env, pages),
    });
    await finishPlan(context, command, builder, { config, run: config.run, flags, outFlag });
  });
}

function registerPlanWeights(plan: Command, context: CliContext): void {
  const real = registeredCommand(weightsCommand, context, ['weights']);
  const { command, outFlag } = planSubcommand(plan, real, `plan \`xsb weights\` ${PLAN_NOTE}`);
  command.action(async (flags: PlanFlags) => {
    const settings = weightSettings(flags);
    const { config, env } = context.loadConfig(configFlags(flags));
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
    const builder = planBuilder(context, config, env, flags);
    await planWeights(builder, {
      layout: new RunLayout(dataDir),
      pairs,
      profiles,
      ...settings,
    });
    await finishPlan(context, command, builder, { config, run: config.run, flags, outFlag });
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
  },
};

import { resolve } from 'node:path';
import { plural, RunLayout, UsageError } from '@xsb/core';
import { DEFAULT_BATCH_SIZE } from '@xsb/eval';
import { fillLabelFor } from '@xsb/llm';
import { planDemo, planEval, planFill, planProbes, planRubric, planRubricDeck, planWeights } from '@xsb/plan';
import { PROBE_DEFAULTS } from '@xsb/probes';
import { loadInstanceAt } from '@xsb/rubric';
import { loadAudienceProfiles, WEIGHT_DEFAULTS } from '@xsb/weights';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import {
  configFlags,
  discoverSelectedCases,
  integerFlag,
  mineruCacheDirFor,
  optionalIntegerFlag,
  pagesFlag,
  parseTauA,
  requireExistingPath,
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
import { probesCommand } from './probes-command';
import { judgingOptions } from './rubric/rubric-flags';
import { rubricCommand } from './rubric-command';
import { weightsCommand } from './weights-command';

const PLAN_NOTE = 'without calling any model: calls, tokens and cost (online, with prompt caching, batch)';

function registerPlanEval(plan: Command, context: CliContext): void {
  const real = registeredCommand(evalCommand, context, ['eval']);
  const { command, outFlag } = planSubcommand(plan, real, `plan \`xsb eval\` ${PLAN_NOTE}`);
  command.action(async (flags: PlanFlags) => {
    parseTauA(flags.tauA as string | undefined);
    const batchSize = integerFlag(
      '--batch-size',
      flags.batchSize as string | undefined,
      DEFAULT_BATCH_SIZE,
      1,
    );
    const { config, env } = context.loadConfig(
      configFlags(flags as { data?: string; run?: string; judge?: string }),
    );
    const dataDir = resolve(context.io.cwd, config.dataDir);
    requireExistingPath(
      `run "${config.run}": deck folder`,
      new RunLayout(dataDir).decksRoot(config.run),
      'generate or import decks for this run first (xsb decks generate|import --run …)',
    );
    const list = (name: string) => flags[name] as string[] | undefined;
    const builder = planBuilder(context, config, env, flags);
    await planEval(builder, {
      dataDir,
      run: config.run,
      batchSize,
      ...(typeof flags.correctnessCacheDir === 'string'
        ? { correctnessCacheDir: resolve(context.io.cwd, flags.correctnessCacheDir) }
        : {}),
      force: flags.force === true,
      filters: {
        ...(list('system') ? { systems: list('system')! } : {}),
        ...(list('condition') ? { conditions: list('condition')! } : {}),
        ...(list('audience') ? { audiences: list('audience')! } : {}),
        ...(list('case') ? { cases: list('case')! } : {}),
      },
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
    const { config, env } = context.loadConfig(configFlags({ judge: flags.judge as string | undefined }));
    const builder = planBuilder(context, config, env, flags);
    const { concurrency: _concurrency, ...decided } = judging;
    await planRubric(builder, {
      instancesDir,
      resultsDir,
      force: flags.force === true,
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
    const { config, env } = context.loadConfig(configFlags({ judge: flags.judge as string | undefined }));
    const builder = planBuilder(context, config, env, flags);
    const instance = await loadInstanceAt(
      instancePath,
      typeof flags.dataRoot === 'string' ? resolve(context.io.cwd, flags.dataRoot) : undefined,
    );
    const { concurrency: _concurrency, ...decided } = judging;
    await planRubricDeck(builder, {
      instance,
      deckPath,
      force: flags.force === true,
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
    const { config, env } = context.loadConfig(configFlags({ judge: flags.judge as string | undefined }));
    const builder = planBuilder(context, config, env, flags);
    await planDemo(builder, {
      outDir: resolve(context.io.cwd, (flags.out as string | undefined) ?? 'xsb-demo'),
      ...(typeof flags.sources === 'string'
        ? { sourcesDir: requireExistingPath('sources folder', resolve(context.io.cwd, flags.sources)) }
        : {}),
      force: flags.force === true,
    });
    // The demo keeps its own run ledger: <out>/data/runs/demo/usage_ledger.jsonl.
    const demoConfig = {
      ...config,
      dataDir: resolve(context.io.cwd, (flags.out as string | undefined) ?? 'xsb-demo', 'data'),
    };
    await finishPlan(context, command, builder, { config: demoConfig, run: 'demo', flags, outFlag });
  });
}

function registerPlanProbes(plan: Command, context: CliContext): void {
  const real = registeredCommand(probesCommand, context, ['probes']);
  const { command, outFlag } = planSubcommand(plan, real, `plan \`xsb probes\` ${PLAN_NOTE}`);
  command.action(async (flags: PlanFlags) => {
    const value = (name: string) => flags[name] as string | undefined;
    const k = integerFlag('--k', value('k'), PROBE_DEFAULTS.k, 1);
    const chunkChars = integerFlag('--chunk-chars', value('chunkChars'), PROBE_DEFAULTS.chunkChars);
    const chunkOverlap = integerFlag('--chunk-overlap', value('chunkOverlap'), PROBE_DEFAULTS.chunkOverlap);
    const sourceChars = optionalIntegerFlag('--source-chars', value('sourceChars'), 1);
    const pages = pagesFlag(value('pages'));
    const { config, env } = context.loadConfig(configFlags({ data: value('data'), judge: value('judge') }));
    const dataDir = resolve(context.io.cwd, config.dataDir);
    const { cases, failures } = await discoverSelectedCases(dataDir, flags.case as string[] | undefined);
    const builder = planBuilder(context, config, env, flags);
    for (const failure of failures) builder.note(`probes ${failure.caseId}: ${failure.error.message}`);
    const inShard = shardFilter(flags);
    await planProbes(builder, {
      layout: new RunLayout(dataDir),
      cases: cases.filter((sourceCase) => inShard(sourceCase.caseId)),
      k,
      chunkChars,
      chunkOverlap,
      sourceChars,
      force: flags.force === true,
      sourceOptions: {
        pdfParser: config.pdfParser,
        env,
        mineruCacheDir: mineruCacheDirFor(config, env),
        pages,
      },
    });
    await finishPlan(context, command, builder, { config, run: config.run, flags, outFlag });
  });
}

function registerPlanWeights(plan: Command, context: CliContext): void {
  const real = registeredCommand(weightsCommand, context, ['weights']);
  const { command, outFlag } = planSubcommand(plan, real, `plan \`xsb weights\` ${PLAN_NOTE}`);
  command.action(async (flags: PlanFlags) => {
    const value = (name: string) => flags[name] as string | undefined;
    const k = integerFlag('--k', value('k'), WEIGHT_DEFAULTS.k, 1);
    const batchSize = integerFlag('--batch-size', value('batchSize'), WEIGHT_DEFAULTS.batchSize, 1);
    const { config, env } = context.loadConfig(configFlags({ data: value('data'), judge: value('judge') }));
    const profiles = await loadAudienceProfiles(
      value('audiences') ? resolve(context.io.cwd, value('audiences')!) : undefined,
    );
    const wanted = (flags.audience as string[] | undefined) ?? [];
    const unknown = wanted.filter((id) => !profiles.has(id));
    if (unknown.length > 0)
      throw new UsageError(
        `unknown audience ${unknown.map((id) => JSON.stringify(id)).join(', ')} (known: ${[...profiles.keys()].join(', ')}; add profiles with --audiences <file>)`,
      );
    const dataDir = resolve(context.io.cwd, config.dataDir);
    const { cases } = await discoverSelectedCases(dataDir, flags.case as string[] | undefined);
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
      k,
      batchSize,
      force: flags.force === true,
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

import { resolve } from 'node:path';
import { plural, readJson, readJsonlAll, UsageError } from '@xsb/core';
import { usageLedgerEntrySchema } from '@xsb/llm';
import { costPlanSchema, reconcileUsage, reconciliationTable } from '@xsb/plan';
import { configFlags, existingLedger, requireExistingPath } from '../cli-options';
import type { CommandModule } from '../command-module';
import { reportExitCode } from '../exit-code';
import { printTable } from '../print-table';
import { printUsageSummary } from './llm-command';

interface UsageFlags {
  data?: string;
  run?: string;
  ledger?: string;
  plan?: string;
  json?: boolean;
}

/** `xsb usage [--plan PLAN.json]`: the run's ledger, or the ledger against a cost plan stage by stage. */
export const usageCommand: CommandModule = {
  name: 'usage',
  register(program, context) {
    program
      .command('usage')
      .description(
        "a run's judge calls, tokens and cost; with --plan, reconciled against an `xsb plan` (exit 1 when an exact row is off)",
      )
      .option('--data <dir>', 'data folder (default: config dataDir)')
      .option('--run <name>', 'the run whose usage ledger is read (default: config run)')
      .option('--ledger <file>', 'a ledger file instead of the run ledger')
      .option('--plan <file>', 'a plan written by `xsb plan … --out PLAN.json`')
      .option('--json', 'print as JSON')
      .action(async (flags: UsageFlags) => {
        const { config } = context.loadConfig(configFlags(flags));
        const file = existingLedger(context, config, flags.ledger);
        if (!flags.plan) {
          await printUsageSummary(context, file, config.prices, flags.json ?? false);
          return;
        }
        const planFile = requireExistingPath('--plan', resolve(context.io.cwd, flags.plan));
        const plan = await readJson(planFile, costPlanSchema);
        if (!flags.ledger && plan.run !== null && plan.run !== config.run)
          throw new UsageError(
            `the plan is of run "${plan.run}", not "${config.run}": pass --run ${plan.run} (or --ledger FILE)`,
          );
        const lines = await readJsonlAll(file, usageLedgerEntrySchema);
        if (lines.length < plan.ledger_lines_before)
          throw new UsageError(
            `${file} has ${lines.length} lines but had ${plan.ledger_lines_before} when the plan was made: not the same ledger`,
          );
        const reconciliation = reconcileUsage(plan, lines.slice(plan.ledger_lines_before), config.prices);
        if (!reconciliation.ok) reportExitCode(1);
        if (flags.json) {
          context.printJson({ ledger: file, plan: planFile, ...reconciliation });
          return;
        }
        context.print(
          `# xsb ${plan.command}: plan (${plan.created_at}, judge ${plan.judge}) against ${plural(lines.length - plan.ledger_lines_before, 'ledger line')} of ${file}`,
        );
        const table = reconciliationTable(reconciliation);
        printTable(context.print, table.header, table.rows, table.numeric);
        context.print(
          'input error = (planned - billed) / billed input tokens (uncached + cache reads + writes); output tokens are shown, never bounded',
        );
        for (const row of reconciliation.rows)
          for (const problem of row.problems) context.print(`FAIL ${row.stage}: ${problem}`);
        for (const note of reconciliation.notes) context.print(`note: ${note}`);
        context.print(
          reconciliation.ok
            ? 'every exact row matches: calls exactly, input tokens within 10 %'
            : 'some exact rows do not match the plan (exit 1)',
        );
      });
  },
};

import { resolve } from 'node:path';
import { plural } from '@xsb/core';
import { createLlmClient, fillLabelFor, fillReplayStore } from '@xsb/llm';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { addBatchFlags, type BatchFlags, judgedStage, stageConcurrency } from '../cli-options';
import { reportExitCode } from '../exit-code';

interface FillFlags extends BatchFlags {
  store: string;
  judge: string;
  ledger?: string;
  json?: boolean;
}

/** `xsb llm fill`: answers the prompts a record run left with one model (see @xsb/llm `fillReplayStore`). */
export function registerFill(llm: Command, context: CliContext): void {
  const command = llm
    .command('fill')
    .description(
      'answer the prompts a record run left in STORE.pending.jsonl with one model and append them to STORE under its label',
    )
    .requiredOption(
      '--store <file>',
      'the replay store (STORE.jsonl; its pending prompts are STORE.pending.jsonl)',
    )
    .requiredOption('--judge <spec>', 'the model that answers: anthropic:<model> or openai:<model>')
    .option(
      '--ledger <file>',
      'usage ledger of the calls (default: the run ledger of config dataDir and run)',
    );
  addBatchFlags(command, '<data>/runs/<run>/batches/')
    .option('--json', 'print the result as JSON')
    .action(async (flags: FillFlags) => {
      const label = fillLabelFor(flags.judge);
      const stage = judgedStage(context, flags, (l, run) => l.batchStateDir(run));
      const { config, batch } = stage;
      const options = {
        ...stage.clientOptions,
        ...(flags.ledger ? { ledgerFile: resolve(context.io.cwd, flags.ledger) } : {}),
        stage: 'llm.fill',
      };
      const client = createLlmClient(config.judge, options);
      const result = await fillReplayStore({
        store: resolve(context.io.cwd, flags.store),
        client,
        label,
        ...(batch ? { concurrency: stageConcurrency(config.judge, options) } : {}),
        progress: context.progress(),
      });
      if (result.failures.length > 0) reportExitCode(1);
      if (flags.json) {
        context.printJson(result);
        return;
      }
      context.print(
        `${result.store}: ${plural(result.pending, 'pending prompt')}: ${result.filled} filled by ${label}${batch ? ' (batch API)' : ''}, ${result.alreadyStored} already in the store, ${result.failures.length} failed`,
      );
      for (const failure of result.failures)
        context.warn(`failed: ${failure.key}${failure.stage ? ` (${failure.stage})` : ''}: ${failure.error}`);
    });
}

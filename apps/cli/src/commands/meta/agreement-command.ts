import { resolve } from 'node:path';
import { plural, writeJson } from '@xsb/core';
import { computeAgreement, DEFAULT_AGREEMENT_SEED, metaAgreementSchema, readVerdictSet } from '@xsb/meta';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import { integerFlag, requireExistingPath } from '../../cli-options';

interface AgreementFlags {
  a: string;
  b: string;
  out?: string;
  seed?: string;
  resamples?: string;
  show?: string;
  json?: boolean;
}

const fixed = (value: number | null) => (value === null ? '–' : value.toFixed(3));

/** `xsb meta agreement`: two verdict sets over the same items. */
export function registerAgreement(meta: Command, context: CliContext): void {
  meta
    .command('agreement')
    .description(
      'agreement of two verdict sets (rubric evaluations, PresentBench results, probe_scores.jsonl, correctness.json, or folders of them)',
    )
    .requiredOption('--a <path>', 'first verdict file or folder')
    .requiredOption('--b <path>', 'second verdict file or folder (folders are matched by relative path)')
    .option('--out <file>', 'write the result JSON here')
    .option('--seed <n>', `bootstrap seed (default ${DEFAULT_AGREEMENT_SEED})`)
    .option('--resamples <n>', 'bootstrap resamples (default 2000)')
    .option('--show <n>', 'disagreements to print (default 20)')
    .option('--json', 'print the result as JSON')
    .action(async (flags: AgreementFlags) => {
      const seed = integerFlag('--seed', flags.seed, DEFAULT_AGREEMENT_SEED, 0);
      const resamples = integerFlag('--resamples', flags.resamples, 2000, 1);
      const show = integerFlag('--show', flags.show, 20, 0);
      const a = await readVerdictSet(requireExistingPath('--a', resolve(context.io.cwd, flags.a)));
      const b = await readVerdictSet(requireExistingPath('--b', resolve(context.io.cwd, flags.b)));
      const result = computeAgreement(a, b, { seed, resamples });
      if (flags.out) await writeJson(resolve(context.io.cwd, flags.out), metaAgreementSchema, result);
      if (flags.json) {
        context.printJson(result);
        return;
      }
      context.print(
        `${plural(result.matched_items, 'item')} in both (${result.only_in_a} only in --a, ${result.only_in_b} only in --b); judges ${result.judge_a.join(', ') || '?'} vs ${result.judge_b.join(', ') || '?'}`,
      );
      context.print('class                  n     agreement              kappa                  alpha');
      for (const row of [...result.classes, result.overall]) {
        const cell = (value: { value: number | null; ci_low: number | null; ci_high: number | null }) =>
          `${fixed(value.value)} [${fixed(value.ci_low)}, ${fixed(value.ci_high)}]`.padEnd(23);
        context.print(
          `${row.class.padEnd(22)} ${String(row.n).padEnd(5)} ${cell(row.agreement)}${cell(row.kappa)}${cell(row.alpha)}`,
        );
      }
      for (const item of result.disagreements.slice(0, show))
        context.print(`  differ: ${item.item}  ${item.a} vs ${item.b}`);
      if (result.disagreements.length > show)
        context.print(
          `  … ${plural(result.disagreements.length - show, 'more disagreement')}${flags.out ? ` in ${flags.out}` : ' (--out FILE lists all)'}`,
        );
    });
}

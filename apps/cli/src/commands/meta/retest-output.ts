import type { MetaRetest, MetaRetestClass } from '@xsb/meta';
import type { CliContext } from '../../cli-context';
import { integerFlag } from '../../cli-options';

/** `--repeats N` of `xsb eval` and `xsb rubric eval`. */
export const REPEATS_FLAG_HELP =
  'test–retest: ask the judge N times (default 1 = the ordinary evaluation only); repeats 1…N−1 bypass the first ask’s response cache (each repeat its own entry), are stored beside the ordinary files (…repeat-<r>…) and their flip rate per item class is written to a retest.json and printed';

export function repeatsFlag(value: string | undefined): number {
  return integerFlag('--repeats', value, 1, 1);
}

const fixed = (value: number | null) => (value === null ? 'n/a' : value.toFixed(3));

function row(entry: MetaRetestClass): string {
  const interval = entry.flip_rate === null ? '' : ` [${fixed(entry.ci_low)}, ${fixed(entry.ci_high)}]`;
  return `| ${entry.class} | ${entry.n} | ${entry.flipped} | ${fixed(entry.flip_rate)}${interval} | ${fixed(entry.mean_pairwise_agreement)} |`;
}

/** The flip-rate table of a retest record, what it rests on, and where it was written. */
export function printRetest(context: CliContext, retest: MetaRetest, file: string): void {
  const scope = Object.entries(retest.scope)
    .map(([key, value]) => `${key} ${value}`)
    .join(', ');
  context.print('');
  context.print(
    `test–retest: judge ${retest.judge} asked ${retest.repeats} times (repeats 1–${retest.repeats - 1} each their own cache entry); ${scope}`,
  );
  context.print(
    `flip rate = share of items whose verdict was not the same in all ${retest.repeats} repeats; ${Math.round(retest.confidence * 100)}% Wilson interval`,
  );
  context.print('');
  context.print('| item class | n | flipped | flip rate [95% CI] | mean pairwise agreement |');
  context.print('| --- | ---: | ---: | --- | ---: |');
  for (const entry of retest.classes) context.print(row(entry));
  context.print(row(retest.overall));
  context.print('');
  context.print(
    `incomplete items (missing from some repeat, not in n): ${retest.incomplete}; failed repeats: ${retest.failures.length}`,
  );
  for (const failure of retest.failures)
    context.print(`failed    repeat ${failure.repeat} ${failure.where}: ${failure.error}`);
  if (retest.note) context.print(`NOTE: ${retest.note}`);
  context.print(`retest: ${file}`);
}

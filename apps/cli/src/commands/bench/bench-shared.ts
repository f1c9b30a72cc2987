import { resolve } from 'node:path';
import { BenchLayout, markInterruptedRuns } from '@xsb/bench';
import { UsageError } from '@xsb/core';
import type { CliContext } from '../../cli-context';

/** Every `xsb bench` command first marks the runs a dead process left `running` as interrupted. */
export async function sweepInterruptedRuns(context: CliContext, dataDir: string): Promise<void> {
  for (const runId of await markInterruptedRuns(new BenchLayout(dataDir)))
    context.warn(`bench run ${runId}: its process is gone; marked failed (interrupted)`);
}

/** The data folder of a bench command: `--data`, else the configuration's dataDir. */
export function benchDataDir(context: CliContext, flags: { data?: string }): string {
  const { config } = context.loadConfig(flags.data === undefined ? {} : { dataDir: flags.data });
  return resolve(context.io.cwd, config.dataDir);
}

/** A number flag in a range; anything else is a usage error (exit 2). */
export function numberFlag(
  name: string,
  value: string | undefined,
  fallback: number | undefined,
  range: { min?: number; max?: number; exclusiveMin?: boolean } = {},
): number | undefined {
  if (value === undefined) return fallback;
  const number = Number(value);
  const low = range.min ?? Number.NEGATIVE_INFINITY;
  const tooLow = range.exclusiveMin ? number <= low : number < low;
  if (
    value.trim() === '' ||
    !Number.isFinite(number) ||
    tooLow ||
    number > (range.max ?? Number.POSITIVE_INFINITY)
  ) {
    const bounds = [
      range.min !== undefined ? `${range.exclusiveMin ? '>' : '>='} ${range.min}` : '',
      range.max !== undefined ? `<= ${range.max}` : '',
    ]
      .filter(Boolean)
      .join(' and ');
    throw new UsageError(
      `${name} must be a number${bounds ? ` ${bounds}` : ''}, got ${JSON.stringify(value)}`,
    );
  }
  return number;
}

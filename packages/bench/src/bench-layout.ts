import { join } from 'node:path';
import { assertSafePathPart } from '@xsb/core';

/** The files of one bench run folder. */
export const BENCH_RUN_FILES = {
  run: 'run.json',
  rows: 'per_row.jsonl',
  summary: 'summary.json',
  report: 'report.md',
} as const;

/**
 * Where the bench keeps its records under a data folder:
 *
 * ```
 * <data>/bench.yaml                      named configurations and factors (optional)
 * <data>/bench/splits.jsonl              the stored dev/test split
 * <data>/bench/test_ledger.jsonl         every opening of the sealed test split
 * <data>/bench/runs/<run id>/            run.json, per_row.jsonl, summary.json, report.md
 * ```
 */
export class BenchLayout {
  constructor(readonly dataDir: string) {}

  configFile(): string {
    return join(this.dataDir, 'bench.yaml');
  }

  benchDir(): string {
    return join(this.dataDir, 'bench');
  }

  splitsFile(): string {
    return join(this.benchDir(), 'splits.jsonl');
  }

  testLedgerFile(): string {
    return join(this.benchDir(), 'test_ledger.jsonl');
  }

  runsDir(): string {
    return join(this.benchDir(), 'runs');
  }

  runDir(runId: string): string {
    return join(this.runsDir(), assertSafePathPart(runId, 'bench run id'));
  }

  runFile(runId: string, file: keyof typeof BENCH_RUN_FILES): string {
    return join(this.runDir(runId), BENCH_RUN_FILES[file]);
  }
}

/**
 * Metrics another stage writes into evaluation folders (e.g. @xsb/design's `design.json`), summarised by
 * stage 7 beside stage 6's: per (system, audience) the mean, interval and n, in a table of their own. The
 * stage that writes the file owns its reader, so this package needs none of its code.
 */
export interface EvaluationMetricReader {
  /** The family, also the prefix of its metric names in the summary (`design` → `design.colorfulness`). */
  family: string;
  /** The file it reads in an evaluation folder, named in the summary. */
  file: string;
  /** What the numbers are and what they rest on, printed above the family's table. */
  description: string;
  /** Its metric names without the prefix, in report order. */
  metrics: readonly string[];
  /** The values of one evaluation folder, by metric name without the prefix; null when the stage has not run there. */
  read(evaluationDir: string): Promise<Record<string, number | null> | null>;
}

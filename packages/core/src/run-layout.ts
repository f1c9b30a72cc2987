import { isAbsolute, join } from 'node:path';
import { InputError } from './errors';

/**
 * Refuses any value that could move a path outside its folder: empty, `.` or `..`, absolute, with a
 * path separator, a NUL or another control character. Names reach paths from run sheets, metadata
 * files and API requests, so this is the one gate every path part goes through.
 */
export function assertSafePathPart(value: string, what: string): string {
  const shown = JSON.stringify(value);
  const refuse = (reason: string): never => {
    throw new InputError(`${what} ${shown} cannot be used as a path part: ${reason}`, {
      code: 'unsafe_path_part',
    });
  };
  if (typeof value !== 'string' || value.length === 0) refuse('it is empty');
  if (value.trim() === '') refuse('it is blank');
  if (value === '.' || value === '..') refuse('it names the current or parent folder');
  if (/[\u0000-\u001f\u007f]/.test(value)) refuse('it holds a NUL or control character');
  if (value.includes('/') || value.includes('\\')) refuse('it holds a path separator');
  if (isAbsolute(value) || /^[a-zA-Z]:/.test(value)) refuse('it is an absolute path');
  if (value.length > 200) refuse('it is longer than 200 characters');
  return value;
}

export interface DeckLocation {
  run: string;
  system: string;
  condition: string;
  audience: string;
  caseLabel: string;
}

/**
 * Maps names to the paths of spec 000 under one data folder (the folder called `data/` in the spec):
 *
 * ```
 * <data>/sources/<case_id>/                                 source file + source_metadata.json
 * <data>/probes/<case_label>/                               source_context.txt, raw/chunk_XX/, probes_deduped.jsonl,
 *                                                           probe_generation_status.json, weights/<audience>.jsonl
 * <data>/runs/<run>/decks/<system>/<condition>/<audience>/<case_label>/
 * <data>/runs/<run>/evaluations/<system>/<condition>/<audience>/<case_label>/
 * <data>/runs/<run>/metrics/<system_id>/<audience>/<case_label>.json
 * <data>/runs/<run>/correctness_cache/
 * <data>/runs/<run>/summary/                                summary.json, summary.csv, report.md
 * <data>/runs/<run>/batches/                                --batch state of the run's stages
 * <data>/batches/                                           --batch state of probes and weights
 * ```
 *
 * Every name is checked with {@link assertSafePathPart} before it becomes part of a path.
 */
export class RunLayout {
  constructor(readonly dataDir: string) {}

  sourcesDir(): string {
    return join(this.dataDir, 'sources');
  }

  sourceDir(caseId: string): string {
    return join(this.sourcesDir(), assertSafePathPart(caseId, 'case id'));
  }

  sourceMetadataFile(caseId: string): string {
    return join(this.sourceDir(caseId), 'source_metadata.json');
  }

  probesRoot(): string {
    return join(this.dataDir, 'probes');
  }

  probesDir(caseLabel: string): string {
    return join(this.probesRoot(), assertSafePathPart(caseLabel, 'case label'));
  }

  sourceContextFile(caseLabel: string): string {
    return join(this.probesDir(caseLabel), 'source_context.txt');
  }

  rawChunkDir(caseLabel: string, chunkIndex: number): string {
    if (!Number.isInteger(chunkIndex) || chunkIndex < 0)
      throw new InputError(`bad chunk index ${chunkIndex}`);
    return join(this.probesDir(caseLabel), 'raw', `chunk_${String(chunkIndex).padStart(2, '0')}`);
  }

  probesFile(caseLabel: string): string {
    return join(this.probesDir(caseLabel), 'probes_deduped.jsonl');
  }

  probeStatusFile(caseLabel: string): string {
    return join(this.probesDir(caseLabel), 'probe_generation_status.json');
  }

  weightsDir(caseLabel: string): string {
    return join(this.probesDir(caseLabel), 'weights');
  }

  weightsFile(caseLabel: string, audience: string): string {
    return join(this.weightsDir(caseLabel), `${assertSafePathPart(audience, 'audience')}.jsonl`);
  }

  runDir(run: string): string {
    return join(this.dataDir, 'runs', assertSafePathPart(run, 'run name'));
  }

  decksRoot(run: string): string {
    return join(this.runDir(run), 'decks');
  }

  deckDir(location: DeckLocation): string {
    return join(
      this.decksRoot(location.run),
      assertSafePathPart(location.system, 'system'),
      assertSafePathPart(location.condition, 'condition'),
      assertSafePathPart(location.audience, 'audience'),
      assertSafePathPart(location.caseLabel, 'case label'),
    );
  }

  evaluationsRoot(run: string): string {
    return join(this.runDir(run), 'evaluations');
  }

  evaluationDir(location: DeckLocation): string {
    return join(
      this.evaluationsRoot(location.run),
      assertSafePathPart(location.system, 'system'),
      assertSafePathPart(location.condition, 'condition'),
      assertSafePathPart(location.audience, 'audience'),
      assertSafePathPart(location.caseLabel, 'case label'),
    );
  }

  metricsRoot(run: string): string {
    return join(this.runDir(run), 'metrics');
  }

  compactMetricsFile(run: string, systemId: string, audience: string, caseLabel: string): string {
    return join(
      this.metricsRoot(run),
      assertSafePathPart(systemId, 'system id'),
      assertSafePathPart(audience, 'audience'),
      `${assertSafePathPart(caseLabel, 'case label')}.json`,
    );
  }

  correctnessCacheDir(run: string): string {
    return join(this.runDir(run), 'correctness_cache');
  }

  /** Stage 7 output of a run: summary.json, summary.csv, report.md. */
  summaryDir(run: string): string {
    return join(this.runDir(run), 'summary');
  }

  usageLedgerFile(run: string): string {
    return join(this.runDir(run), 'usage_ledger.jsonl');
  }

  /**
   * The state folder of `--batch` (`BatchOptions.stateDir` in @xsb/llm, which keeps its files in
   * `<stateDir>/batches/`): the run's folder for a stage of a run, the data folder for the stages
   * that have no run (probes, weights). A restarted process finds its batches there.
   */
  batchStateDir(run?: string): string {
    return run === undefined ? this.dataDir : this.runDir(run);
  }
}

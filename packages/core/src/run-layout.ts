import { isAbsolute, join } from 'node:path';
import { InputError } from './errors';

/** The one gate every name from run sheets, metadata files and API requests passes to become a path part. */
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

/** The paths of spec 000 under one data folder (`data/` in the spec); every name is checked first. */
const locationParts = (location: DeckLocation) => [
  assertSafePathPart(location.system, 'system'),
  assertSafePathPart(location.condition, 'condition'),
  assertSafePathPart(location.audience, 'audience'),
  assertSafePathPart(location.caseLabel, 'case label'),
];

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
    return join(this.decksRoot(location.run), ...locationParts(location));
  }

  evaluationsRoot(run: string): string {
    return join(this.runDir(run), 'evaluations');
  }

  evaluationDir(location: DeckLocation): string {
    return join(this.evaluationsRoot(location.run), ...locationParts(location));
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

  /** Rendered slide pages by deck content and width, shared by the stages that look at pages (design metrics, report thumbnails). */
  slideRendersDir(run: string): string {
    return join(this.runDir(run), 'slide_renders');
  }

  correctnessCacheDir(run: string): string {
    return join(this.runDir(run), 'correctness_cache');
  }

  summaryDir(run: string): string {
    return join(this.runDir(run), 'summary');
  }

  usageLedgerFile(run: string): string {
    return join(this.runDir(run), 'usage_ledger.jsonl');
  }

  /** `--batch` state: the run's folder, or the data folder for stages without a run (probes, weights). */
  batchStateDir(run?: string): string {
    return run === undefined ? this.dataDir : this.runDir(run);
  }
}

import { join } from 'node:path';
import { assertSafePathPart } from '@xsb/core';

/**
 * Where the API keeps its own files inside a data folder, beside spec 000's tree:
 *
 * ```
 * <data>/api/jobs.sqlite (+ -wal, -shm)   the job store of one machine (SQLite)
 * <data>/api/tmp/                          uploads while they stream in (removed on any refusal)
 * <data>/api/uploads/<job id>.<pptx|pdf>   an accepted deck until its job ends
 * <data>/rubric/instances/                 rubric instances the API evaluates against
 * <data>/rubric/results/<system>/<instance>/generation_task/results/slides.<ext>
 * ```
 */
export class ApiDataLayout {
  constructor(readonly dataDir: string) {}

  apiDir(): string {
    return join(this.dataDir, 'api');
  }

  databaseFile(): string {
    return join(this.apiDir(), 'jobs.sqlite');
  }

  tmpDir(): string {
    return join(this.apiDir(), 'tmp');
  }

  uploadsDir(): string {
    return join(this.apiDir(), 'uploads');
  }

  upload(jobId: string, format: 'pptx' | 'pdf'): string {
    return join(this.uploadsDir(), `${assertSafePathPart(jobId, 'job id')}.${format}`);
  }

  rubricInstancesDir(): string {
    return join(this.dataDir, 'rubric', 'instances');
  }

  /** The PresentBench results layout, so `xsb rubric run --results` reads the same tree. */
  rubricDeckFile(system: string, instance: string, format: 'pptx' | 'pdf'): string {
    const parts = instance.split('/').map((part) => assertSafePathPart(part, 'instance'));
    return join(
      this.dataDir,
      'rubric',
      'results',
      assertSafePathPart(system, 'system'),
      ...parts,
      'generation_task',
      'results',
      `slides.${format}`,
    );
  }
}

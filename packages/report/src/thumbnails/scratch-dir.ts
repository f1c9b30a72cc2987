import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createScratchDir } from '@xsb/core';

export { removeScratchDir } from '@xsb/core';

/**
 * A scratch folder on tmpfs (`/dev/shm`) when there is one, else the system temp folder: rendering
 * writes and fsyncs a PNG per page and LibreOffice a PDF per deck there, which on a busy disk cost
 * more than the rendering itself. Registered with `@xsb/core`'s cleanup, so an interrupted report
 * leaves none behind; remove it with `removeScratchDir`.
 */
export async function scratchDir(prefix: string): Promise<string> {
  return createScratchDir(prefix, existsSync('/dev/shm') ? '/dev/shm' : tmpdir());
}

import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createScratchDir } from '@xsb/core';

export { removeScratchDir } from '@xsb/core';

/**
 * A scratch folder on tmpfs when there is one (a PNG per page and a PDF per deck are fsynced there,
 * which costs more than rendering on a busy disk); registered with `@xsb/core`'s cleanup.
 */
export async function scratchDir(prefix: string): Promise<string> {
  return createScratchDir(prefix, existsSync('/dev/shm') ? '/dev/shm' : tmpdir());
}

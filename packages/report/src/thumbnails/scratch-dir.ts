import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createScratchDir } from '@xsb/core';

export { removeScratchDir } from '@xsb/core';

/** On tmpfs when there is one: fsyncing a PNG per page costs more than rendering on a busy disk. */
export async function scratchDir(prefix: string): Promise<string> {
  return createScratchDir(prefix, existsSync('/dev/shm') ? '/dev/shm' : tmpdir());
}

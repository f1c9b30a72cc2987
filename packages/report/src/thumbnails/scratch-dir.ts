import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A scratch folder on tmpfs (`/dev/shm`) when there is one, else the system temp folder: rendering
 * writes and fsyncs a PNG per page and LibreOffice a PDF per deck there, which on a busy disk cost
 * more than the rendering itself.
 */
export async function scratchDir(prefix: string): Promise<string> {
  return mkdtemp(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), prefix));
}

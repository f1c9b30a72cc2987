import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '@xsb/core';
import { z } from 'zod';
import { CACHE_FORMAT_VERSION } from './request-key';

const cachedAnswerSchema = z.object({
  v: z.literal(CACHE_FORMAT_VERSION),
  key: z.string(),
  judgeId: z.string(),
  model: z.string(),
  text: z.string(),
  usage: z.object({
    inputTokens: z.number(),
    outputTokens: z.number(),
    cacheReadTokens: z.number(),
    cacheWriteTokens: z.number(),
  }),
  latencyMs: z.number(),
  stopReason: z.enum(['end', 'max_tokens', 'stop_sequence', 'other']).optional(),
});
export type CachedAnswer = z.infer<typeof cachedAnswerSchema>;

export interface CacheStats {
  dir: string;
  entries: number;
  bytes: number;
}

/**
 * One file per answer under `<cacheDir>/llm/v<version>/<key[0..2]>/<key>.json`, written with temp +
 * rename; a file that fails to parse is a miss.
 */
export class DiskCache {
  readonly root: string;

  constructor(cacheDir: string) {
    this.root = join(cacheDir, 'llm', `v${CACHE_FORMAT_VERSION}`);
  }

  private fileFor(key: string): string {
    return join(this.root, key.slice(0, 2), `${key}.json`);
  }

  async get(key: string): Promise<CachedAnswer | undefined> {
    try {
      const parsed = cachedAnswerSchema.safeParse(JSON.parse(await readFile(this.fileFor(key), 'utf8')));
      return parsed.success && parsed.data.key === key ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  async put(entry: CachedAnswer): Promise<void> {
    await writeFileAtomic(this.fileFor(entry.key), `${JSON.stringify(entry)}\n`);
  }

  async stats(): Promise<CacheStats> {
    let entries = 0;
    let bytes = 0;
    for (const shard of await listDir(this.root)) {
      const shardDir = join(this.root, shard);
      for (const name of await listDir(shardDir)) {
        if (!name.endsWith('.json') || name.startsWith('.')) continue;
        try {
          bytes += (await stat(join(shardDir, name))).size;
          entries += 1;
        } catch {
          // Removed by a concurrent clear between the listing and the stat.
        }
      }
    }
    return { dir: this.root, entries, bytes };
  }

  /** Removes every cached answer of this format version; returns how many there were. */
  async clear(): Promise<number> {
    const { entries } = await this.stats();
    await rm(this.root, { recursive: true, force: true });
    return entries;
  }
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

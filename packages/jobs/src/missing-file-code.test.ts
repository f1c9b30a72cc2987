import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isXsbError, mergeShardTrees, RunLayout, readJsonlAll, readUtf8Text } from '@xsb/core';
import { readDeck } from '@xsb/decks';
import { readSourceContext } from '@xsb/sources';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

/** A file that is not there is one code whichever package reads it (it shows in a failed job's `error`). */
describe('file not found: one error code across packages', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'xsb-missing-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const codeOf = async (attempt: Promise<unknown>): Promise<unknown> => {
    const error = await attempt.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isXsbError(error)).toBe(true);
    return (error as { code: unknown }).code;
  };

  it('core text and JSONL readers, the shard merge, the deck reader and the source context agree', async () => {
    const none = join(dir, 'none');
    expect(await codeOf(readUtf8Text(`${none}.md`))).toBe('missing_file');
    expect(await codeOf(readJsonlAll(`${none}.jsonl`, z.object({})))).toBe('missing_file');
    expect(await codeOf(mergeShardTrees({ shards: [none], into: join(dir, 'out') }))).toBe('missing_file');
    expect(await codeOf(readDeck(`${none}.pptx`))).toBe('missing_file');
    expect(await codeOf(readSourceContext(new RunLayout(dir), 'never'))).toBe('missing_file');
  });
});

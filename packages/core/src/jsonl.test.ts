import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InputError, ValidationError } from './errors';
import { JsonlWriter, readJsonl, readJsonlAll, writeJsonlAtomic } from './jsonl';
import { probeScoreSchema } from './schemas/probe-score';
import { makeTempDir } from './testing';

const row = (id: string) => ({
  probe_id: id,
  covered: true,
  answer: 'a',
  cited_evidence: 'Slide 1',
  metadata: {},
});

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
});
afterEach(() => cleanup());

describe('readJsonl', () => {
  it('streams valid rows, skipping blank lines, CRLF endings and a BOM', async () => {
    const file = join(dir, 'scores.jsonl');
    await writeFile(file, `\uFEFF${JSON.stringify(row('a'))}\r\n\n${JSON.stringify(row('b'))}`);
    const ids = (await readJsonlAll(file, probeScoreSchema)).map((r) => r.probe_id);
    expect(ids).toEqual(['a', 'b']);
  });

  it('fails a malformed row with file:line and the field', async () => {
    const file = join(dir, 'scores.jsonl');
    const bad = { ...row('c'), covered: 'yes' };
    await writeFile(file, [row('a'), row('b'), bad].map((r) => JSON.stringify(r)).join('\n'));
    await expect(readJsonlAll(file, probeScoreSchema)).rejects.toThrow(`${file}:3: field "covered"`);
  });

  it('fails invalid JSON with file:line', async () => {
    const file = join(dir, 'scores.jsonl');
    await writeFile(file, `${JSON.stringify(row('a'))}\n{"probe_id": "b",\n`);
    const error = await readJsonlAll(file, probeScoreSchema).catch((e) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toMatch(new RegExp(`${file}:2: invalid JSON`));
  });

  it('fails invalid UTF-8 with file:line', async () => {
    const file = join(dir, 'scores.jsonl');
    const good = Buffer.from(`${JSON.stringify(row('a'))}\n`);
    await writeFile(file, Buffer.concat([good, Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a])]));
    await expect(readJsonlAll(file, probeScoreSchema)).rejects.toThrow(`${file}:2: line is not valid UTF-8`);
  });

  it('goes on past bad lines when the caller records them', async () => {
    const file = join(dir, 'scores.jsonl');
    await writeFile(file, [JSON.stringify(row('a')), 'nope', JSON.stringify(row('c'))].join('\n'));
    const errors: ValidationError[] = [];
    const rows = await readJsonlAll(file, probeScoreSchema, { onInvalid: (e) => errors.push(e) });
    expect(rows.map((r) => r.probe_id)).toEqual(['a', 'c']);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.line).toBe(2);
  });

  it('reads lines split across stream chunks', async () => {
    const file = join(dir, 'long.jsonl');
    const long = { ...row('x'), answer: 'é'.repeat(100_000) };
    await writeFile(file, `${JSON.stringify(long)}\n${JSON.stringify(row('y'))}\n`);
    const rows = await readJsonlAll(file, probeScoreSchema);
    expect(rows[0]!.answer).toHaveLength(100_000);
    expect(rows[1]!.probe_id).toBe('y');
  });

  it('names a missing file', async () => {
    const error = await readJsonlAll(join(dir, 'none.jsonl'), probeScoreSchema).catch((e) => e);
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toMatch(/none\.jsonl: file not found/);
  });

  it('is lazy: a consumer can stop early', async () => {
    const file = join(dir, 'many.jsonl');
    await writeFile(file, Array.from({ length: 1000 }, (_, i) => JSON.stringify(row(`p${i}`))).join('\n'));
    const seen: string[] = [];
    for await (const r of readJsonl(file, probeScoreSchema)) {
      seen.push(r.probe_id);
      if (seen.length === 3) break;
    }
    expect(seen).toEqual(['p0', 'p1', 'p2']);
  });
});

describe('JsonlWriter', () => {
  it('appends validated rows, each on disk as soon as write resolves', async () => {
    const file = join(dir, 'out', 'scores.jsonl');
    const writer = await JsonlWriter.open(file, probeScoreSchema);
    await writer.write(row('a'));
    expect((await readFile(file, 'utf8')).trim().split('\n')).toHaveLength(1);
    await writer.write(row('b'));
    expect((await readFile(file, 'utf8')).trim().split('\n')).toHaveLength(2);
    await writer.close();
    const again = await JsonlWriter.open(file, probeScoreSchema);
    await again.write(row('c'));
    await again.close();
    expect((await readJsonlAll(file, probeScoreSchema)).map((r) => r.probe_id)).toEqual(['a', 'b', 'c']);
  });

  it('refuses an invalid row and writes nothing for it', async () => {
    const file = join(dir, 'scores.jsonl');
    const writer = await JsonlWriter.open(file, probeScoreSchema);
    await expect(writer.write({ ...row('a'), covered: 1 } as never)).rejects.toThrow(/field "covered"/);
    await writer.close();
    expect(await readFile(file, 'utf8')).toBe('');
  });
});

describe('writeJsonlAtomic', () => {
  it('validates every row before writing anything', async () => {
    const file = join(dir, 'w.jsonl');
    const schema = z.object({ n: z.number() });
    await writeJsonlAtomic(file, schema, [{ n: 1 }]);
    await expect(writeJsonlAtomic(file, schema, [{ n: 2 }, { n: 'x' } as never])).rejects.toThrow(
      /field "n"/,
    );
    expect(await readFile(file, 'utf8')).toBe('{"n":1}\n');
  });
});

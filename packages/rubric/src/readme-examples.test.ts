import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as core from '@xsb/core';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';

const readme = readFileSync(join(__dirname, '../README.md'), 'utf8');
const blocks = [...readme.matchAll(/```json (\w+)\n([\s\S]*?)```/g)].map((match) => ({
  schema: match[1] as string,
  json: match[2] as string,
}));

describe('README artifact examples', () => {
  it('covers every rubric schema @xsb/core exports', () => {
    const rubricSchemas = Object.keys(core).filter((name) => /^rubric\w*Schema$/.test(name));
    expect(blocks.map((block) => block.schema).sort()).toEqual(rubricSchemas.sort());
  });

  it.each(blocks.map((block) => [block.schema, block.json] as const))(
    'its %s example validates',
    (name, json) => {
      const schema = (core as unknown as Record<string, z.ZodType>)[name] as z.ZodType;
      expect(() => core.validateRecord(schema, JSON.parse(json))).not.toThrow();
    },
  );
});

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import * as core from './index';
import { validateRecord } from './validate-record';

const docPath = fileURLToPath(new URL('../../../docs/artifact-formats.md', import.meta.url));
const doc = readFileSync(docPath, 'utf8');
const blocks = [...doc.matchAll(/```json (\w+)\n([\s\S]*?)```/g)].map((m) => ({
  schema: m[1]!,
  json: m[2]!,
}));

describe('docs/artifact-formats.md', () => {
  it('documents every artifact schema @xsb/core exports', () => {
    const documented = new Set(blocks.map((b) => b.schema));
    // Sub-schemas (parts of a file format) and configuration are documented with their parent.
    const parts =
      /^(audienceProfile|batchSettings|lexicalPreferences|boundingBox|claimLabel|claimSnippet|condition|costPlan(Costs|Row)|deckRowOutcome|evidence|hashedInput|layoutCheckResult|metadata|metricSummary|metricsGroupSummary|modelPrice|outline(Chart|Slide|Table)|providerLimits|rubric(Category|CheckItem|ChecklistItem|Dimension|ItemResult|RunRow|Section|Usage|Verdict)|slide|slideElement|slideElementKind|sourceMetadataInput|sourcePageSpan|sourceType|verifiedClaim|xsbConfig)Schema$/;
    const exported = Object.keys(core).filter((name) => name.endsWith('Schema') && !parts.test(name));
    for (const name of exported) expect(documented, `${name} has no example in the doc`).toContain(name);
  });

  it.each(blocks.map((b) => [b.schema, b.json] as const))('its %s example validates', (schemaName, json) => {
    const schema = (core as unknown as Record<string, z.ZodType>)[schemaName];
    expect(schema, `${schemaName} is not exported by @xsb/core`).toBeDefined();
    expect(() => validateRecord(schema!, JSON.parse(json))).not.toThrow();
  });
});

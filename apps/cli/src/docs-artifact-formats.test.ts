import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as bench from '@xsb/bench';
import * as core from '@xsb/core';
import { validateRecord } from '@xsb/core';
import * as decks from '@xsb/decks';
import * as design from '@xsb/design';
import * as eval_ from '@xsb/eval';
import * as jobs from '@xsb/jobs';
import * as llm from '@xsb/llm';
import * as meta from '@xsb/meta';
import * as metrics from '@xsb/metrics';
import * as plan from '@xsb/plan';
import * as probes from '@xsb/probes';
import * as rubric from '@xsb/rubric';
import * as sources from '@xsb/sources';
import * as study from '@xsb/study';
import * as weights from '@xsb/weights';
import { describe, expect, it } from 'vitest';

type Schema = Parameters<typeof validateRecord>[0];
const docPath = fileURLToPath(new URL('../../../docs/artifact-formats.md', import.meta.url));
// Each schema lives with the stage that writes its file; the doc covers them all.
const barrels = {
  bench,
  core,
  decks,
  design,
  eval_,
  jobs,
  llm,
  meta,
  metrics,
  plan,
  probes,
  rubric,
  sources,
  study,
  weights,
};
const schemas: Record<string, Schema> = {};
for (const barrel of Object.values(barrels))
  for (const [name, value] of Object.entries(barrel))
    if (name.endsWith('Schema')) schemas[name] = value as Schema;
const doc = readFileSync(docPath, 'utf8');
const blocks = [...doc.matchAll(/```json (\w+)\n([\s\S]*?)```/g)].map((m) => ({
  schema: m[1]!,
  json: m[2]!,
}));

describe('docs/artifact-formats.md', () => {
  it('documents every artifact schema a package exports', () => {
    const documented = new Set(blocks.map((b) => b.schema));
    // Sub-schemas (parts of a file format) and configuration are documented with their parent.
    const parts =
      /^(apiDeckUpload|audienceProfile|batchSettings|lexicalPreferences|boundingBox|claimLabel|claimSnippet|condition|costPlan(Costs|Row)|deckDesign|deckRowOutcome|evidence|hashedInput|layoutCheckResult|metadata|metricSummary|metricsGroupSummary|modelPrice|outline(Chart|Slide|Table)|providerLimits|rubric(Category|CheckItem|ChecklistItem|Dimension|ItemResult|RunRow|Section|Usage|Verdict)|slide|slideDesign|slideElement|slideElementKind|sourceMetadataInput|sourcePageSpan|sourceType|studyCase|verifiedClaim|xsbConfig)Schema$/;
    const exported = Object.keys(schemas).filter((name) => name.endsWith('Schema') && !parts.test(name));
    for (const name of exported) expect(documented, `${name} has no example in the doc`).toContain(name);
  });

  it.each(blocks.map((b) => [b.schema, b.json] as const))('its %s example validates', (schemaName, json) => {
    const schema = schemas[schemaName];
    expect(schema, `${schemaName} is not exported by any package`).toBeDefined();
    expect(() => validateRecord(schema!, JSON.parse(json))).not.toThrow();
  });
});

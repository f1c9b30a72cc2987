import { ValidationError, validateRecord } from '@xsb/core';
import { describe, expect, it } from 'vitest';
import { sourceMetadataSchema } from './source-metadata';

// The example object of spec 000 "Artifact Data Formats" for source_metadata.json, verbatim.
const example = {
  case_id: 'case_000',
  title: 'Document title',
  source_path: 'data/sources/case_000/source.pdf',
  source_type: 'pdf',
  scene: 'academic_research_talk',
  valid_audiences: ['specialists', 'learners', 'decision_makers'],
  metadata: {},
};
const required = ['case_id', 'title', 'source_path', 'source_type', 'scene', 'valid_audiences'];

describe('spec 000 example: source_metadata', () => {
  it('validates', () => {
    expect(validateRecord(sourceMetadataSchema, example)).toEqual(example);
  });

  it.each(required)('removing "%s" fails naming the field', (field) => {
    const broken: Record<string, unknown> = { ...example };
    delete broken[field];
    let error: unknown;
    try {
      validateRecord(sourceMetadataSchema, broken, { file: 'source_metadata.json' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe(field);
    expect((error as Error).message).toContain(`"${field}"`);
  });
});

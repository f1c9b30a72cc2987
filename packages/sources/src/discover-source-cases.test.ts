import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, InputError } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  discoverSourceCases,
  loadSourceCase,
  sourceTypeOfCase,
  theOneSourceFile,
} from './discover-source-cases';
import { findReferenceDeck } from './reference-deck';
import { writeSourceCase } from './testing';

let root: string;
let cleanup: () => Promise<void>;
let data: string;

beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-discover-'));
  data = join(root, 'data');
});
afterEach(() => cleanup());

describe('discoverSourceCases', () => {
  it('finds cases in id order and completes their metadata from the folder', async () => {
    await writeSourceCase(data, 'case_b', 'notes.md', '# B');
    await writeSourceCase(data, 'case_a', 'paper.pdf', '%PDF', {
      title: 'A paper',
      scene: 'academic_research_talk',
      category: 'science',
      metadata: { year: 2024 },
    });
    await writeFile(join(data, 'sources', 'case_a', '.DS_Store'), 'x');
    const { cases, failures } = await discoverSourceCases(data);
    expect(failures).toEqual([]);
    expect(cases.map((c) => c.caseId)).toEqual(['case_a', 'case_b']);
    const [a, b] = cases;
    expect(a!.sourceType).toBe('pdf');
    expect(a!.sourceFile).toBe(join(data, 'sources', 'case_a', 'paper.pdf'));
    expect(a!.metadata).toEqual({
      case_id: 'case_a',
      title: 'A paper',
      source_path: 'data/sources/case_a/paper.pdf',
      source_type: 'pdf',
      scene: 'academic_research_talk',
      category: 'science',
      valid_audiences: ['specialists', 'learners', 'decision_makers'],
      metadata: { year: 2024 },
    });
    expect(b!.metadata).toMatchObject({
      case_id: 'case_b',
      title: 'case_b',
      source_type: 'markdown',
      scene: 'general',
    });
  });

  it('detects html and text sources and accepts matching case_id, source_path and source_type', async () => {
    await writeSourceCase(data, 'web', 'page.htm', '<p>x</p>', {
      case_id: 'web',
      source_path: 'data/sources/web/page.htm',
      source_type: 'html',
    });
    await writeSourceCase(data, 'plain', 'a.txt', 'x');
    const { cases } = await discoverSourceCases(data);
    expect(cases.map((c) => [c.caseId, c.sourceType])).toEqual([
      ['plain', 'text'],
      ['web', 'html'],
    ]);
  });

  it('does not take a reference deck beside the source for a second source; two reference decks are ambiguous', async () => {
    await writeSourceCase(data, 'pilot', 'report.md', '# Pilot');
    await writeFile(join(data, 'sources', 'pilot', 'reference.pdf'), '%PDF-1.4');
    const { cases, failures } = await discoverSourceCases(data);
    expect(failures).toEqual([]);
    expect(cases.map((c) => c.sourceFile)).toEqual([join(data, 'sources', 'pilot', 'report.md')]);
    expect(findReferenceDeck(join(data, 'sources', 'pilot'))).toBe(
      join(data, 'sources', 'pilot', 'reference.pdf'),
    );
    await writeFile(join(data, 'sources', 'pilot', 'reference.pptx'), 'PK');
    expect(() => findReferenceDeck(join(data, 'sources', 'pilot'))).toThrow(
      /two reference decks \(reference\.pptx, reference\.pdf\): keep one/,
    );
    expect(findReferenceDeck(join(data, 'sources', 'nowhere'))).toBeNull();
  });

  it('uses source_type from metadata for an unknown extension', async () => {
    await writeSourceCase(data, 'odd', 'source.data', 'text', { source_type: 'text' });
    const { cases } = await discoverSourceCases(data);
    expect(cases[0]!.sourceType).toBe('text');
  });

  it('records broken cases as failures naming the file, and still returns the good ones', async () => {
    await writeSourceCase(data, 'good', 'a.md', '# ok');
    await mkdir(join(data, 'sources', 'empty_case'), { recursive: true });
    await writeSourceCase(data, 'two_files', 'a.md', 'x');
    await writeSourceCase(data, 'two_files', 'b.pdf', 'x');
    await writeSourceCase(data, 'bad_json', 'a.md', 'x');
    await writeFile(join(data, 'sources', 'bad_json', 'source_metadata.json'), '{ "title": ');
    await writeSourceCase(data, 'bad_field', 'a.md', 'x', { valid_audiences: 'everyone' });
    await writeSourceCase(data, 'wrong_id', 'a.md', 'x', { case_id: 'other' });
    await writeSourceCase(data, 'wrong_type', 'a.md', 'x', { source_type: 'pdf' });
    await writeSourceCase(data, 'wrong_path', 'a.md', 'x', { source_path: 'data/sources/wrong_path/b.md' });
    await writeSourceCase(data, 'unknown_ext', 'slides.key', 'x');
    const { cases, failures } = await discoverSourceCases(data);
    expect(cases.map((c) => c.caseId)).toEqual(['good']);
    const byCase = Object.fromEntries(failures.map((f) => [f.caseId, f.error]));
    for (const error of Object.values(byCase)) expect(error).toBeInstanceOf(InputError);
    const dir = (id: string) => join(data, 'sources', id);
    const meta = (id: string) => join(dir(id), 'source_metadata.json');
    expect(byCase.empty_case!.message).toBe(
      `${dir('empty_case')}: no source file in the case folder (expected one .pdf, .html, .md or .txt)`,
    );
    expect(byCase.two_files!.message).toBe(
      `${dir('two_files')}: expected exactly one source file, found 2: a.md, b.pdf`,
    );
    expect(byCase.bad_json!.message).toMatch(new RegExp(`^${meta('bad_json')}: invalid JSON`));
    expect(byCase.bad_field!.message).toMatch(new RegExp(`^${meta('bad_field')}: field "valid_audiences"`));
    expect(byCase.wrong_id!.message).toBe(
      `${meta('wrong_id')}: case_id "other" differs from its folder name "wrong_id"`,
    );
    expect(byCase.wrong_type!.message).toMatch(/source_type "pdf" contradicts the file extension of a\.md/);
    expect(byCase.wrong_path!.message).toMatch(
      /source_path ".*b\.md" does not name the case's source file "a\.md"/,
    );
    expect(byCase.unknown_ext!.message).toMatch(
      new RegExp(`^${join(dir('unknown_ext'), 'slides.key')}: unknown source type`),
    );
  });

  it('loadSourceCase names a missing case folder', async () => {
    await expect(loadSourceCase(data, 'ghost')).rejects.toThrow(
      `${join(data, 'sources', 'ghost')}: no such case folder`,
    );
  });

  it('is a configuration error when the sources folder is missing', async () => {
    await expect(discoverSourceCases(data)).rejects.toBeInstanceOf(ConfigError);
    await expect(discoverSourceCases(data)).rejects.toThrow(/sources: no such folder/);
  });
});

describe('theOneSourceFile', () => {
  it('takes the single file and refuses none or several, naming the folder', () => {
    expect(theOneSourceFile(['paper.pdf'], '/d/c1')).toBe('paper.pdf');
    expect(() => theOneSourceFile([], '/d/c1')).toThrow(
      expect.objectContaining({ code: 'no_source_file', file: '/d/c1' }),
    );
    expect(() => theOneSourceFile(['a.md', 'b.pdf'], '/d/c1')).toThrow(/found 2: a\.md, b\.pdf/);
  });
});

describe('sourceTypeOfCase', () => {
  const files = { metadataFile: '/d/c1/source_metadata.json', sourceFile: '/d/c1/notes.data' };
  it('takes the extension, which the metadata may repeat but not contradict', () => {
    expect(sourceTypeOfCase('paper.pdf', {}, files)).toBe('pdf');
    expect(sourceTypeOfCase('paper.pdf', { source_type: 'pdf' }, files)).toBe('pdf');
    expect(() => sourceTypeOfCase('paper.pdf', { source_type: 'html' }, files)).toThrow(
      expect.objectContaining({ code: 'source_type_mismatch', file: files.metadataFile }),
    );
  });
  it('falls back to the metadata for an unknown extension, else names the file', () => {
    expect(sourceTypeOfCase('notes.data', { source_type: 'text' }, files)).toBe('text');
    expect(() => sourceTypeOfCase('notes.data', {}, files)).toThrow(
      expect.objectContaining({ code: 'unknown_source_type', file: files.sourceFile }),
    );
    expect(() => sourceTypeOfCase('old.doc', {}, files)).toThrow(/cannot read the binary \.doc format/);
  });
  it('refuses a source_path naming another file', () => {
    expect(() => sourceTypeOfCase('paper.pdf', { source_path: 'x/other.pdf' }, files)).toThrow(
      expect.objectContaining({ code: 'source_path_mismatch' }),
    );
  });
});

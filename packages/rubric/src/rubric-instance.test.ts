import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadRubricInstance } from './rubric-instance';

const APPENDIX = join(__dirname, '../../../fixtures/rubric/appendix-cs-overview-ch1/instance.yaml');

describe('the appendix A.2/A.3 instance', () => {
  it('loads with the paper’s item counts per dimension', async () => {
    const instance = await loadRubricInstance(APPENDIX);
    // A.3: checklist_1 = 1.1 (slide-count callable) + 1.2–1.13; checklist_2 = 2.1–2.16 with 2.16 twice;
    // material-dependent lists of 13 and 7; the per-slide list runs to _max_pages = 35.
    expect(Object.fromEntries(Object.entries(instance.checklists).map(([k, v]) => [k, v.length]))).toEqual({
      fundamentals: 13,
      design: 17,
      completeness: 13,
      correctness: 7,
      fidelity: 35,
    });
    expect(instance.slideRange).toEqual({ min: 21, max: 35 });
    expect(instance.checklists.fundamentals[0]).toEqual({
      check: 'slide_count',
      params: { min_count: 21, max_count: 35 },
      source: 'utils.count_pages.check_slide_count',
    });
    expect(instance.checklists.fidelity[2]).toContain('Is all content on Slide 3 present');
    expect(instance.prefixes.materialIndependent).toContain('you MUST classify the answer as "no"');
    expect(instance.prefixes.materialDependent).toContain('provided as File 1');
    expect(instance.instruction).toContain('The slide deck MUST have **21-35 slides**.');
    expect(instance.requireSourceAttribution).toBe(true);
    expect(instance.category).toBe('education');
  });
});

describe('loadRubricInstance errors', () => {
  it('names the file and the field', async () => {
    const { dir, cleanup } = await makeTempDir();
    try {
      const file = join(dir, 'instance.json');
      await writeFile(file, JSON.stringify({ id: 'x', category: 'cooking' }));
      await expect(loadRubricInstance(file)).rejects.toThrow(/instance\.json.*category/);
      await writeFile(file, '{ not json');
      await expect(loadRubricInstance(file)).rejects.toThrow(/instance\.json/);
      const appendix = parse(await readFile(APPENDIX, 'utf8'));
      appendix.instruction_file = APPENDIX.replace('instance.yaml', 'instructions.md');
      appendix.materials = [APPENDIX.replace('instance.yaml', 'material.md')];
      appendix.checklists.design[0] = { check: 'fancy_layout' };
      await writeFile(file, JSON.stringify(appendix));
      await expect(loadRubricInstance(file)).rejects.toThrow(
        /instance\.json: field "checklists\.design\[0\]\.check": unknown check "fancy_layout"/,
      );
    } finally {
      await cleanup();
    }
  });
});

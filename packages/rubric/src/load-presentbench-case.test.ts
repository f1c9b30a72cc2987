import { cp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { describe, expect, it } from 'vitest';
import { decodePresentBenchItem } from './decode-presentbench-item';
import {
  findMaterialFiles,
  findPresentBenchCases,
  loadPresentBenchCase,
  readPresentBenchWeights,
} from './load-presentbench-case';

const DATA = join(__dirname, '../../../fixtures/rubric/presentbench-layout/data');
const CASE = join(DATA, 'education/Computer_science_lectures/ch1_bits');

describe('PresentBench dataset layout', () => {
  it('finds leaf cases under the data root', async () => {
    const cases = await findPresentBenchCases(DATA);
    expect(cases.map((dir) => dir.slice(DATA.length + 1))).toEqual([
      'education/Computer_science_lectures/ch1_bits',
      'education/Computer_science_lectures/ch2_bad_callable',
    ]);
  });

  it('orders materials like find_material_files: material.md, then material_1, material_2, ...', () => {
    expect(findMaterialFiles(CASE).map((file) => file.slice(CASE.length + 1))).toEqual([
      'material.md',
      'material_1.md',
    ]);
  });

  it('merges the case judge prompt over the domain one, decodes the callable and reads the weights', async () => {
    const instance = await loadPresentBenchCase(DATA, CASE);
    expect(instance.id).toBe('education/Computer_science_lectures/ch1_bits');
    expect(instance.category).toBe('education');
    // the case overrides the material-independent prefix; the dependent one comes from the domain
    expect(instance.prefixes.materialIndependent).toContain('for an introductory course');
    expect(instance.prefixes.materialDependent).toContain('provided as File 1');
    expect(instance.checklists.fundamentals[0]).toEqual({
      check: 'slide_count',
      params: { min_count: 3, max_count: 5 },
      source: 'utils.count_pages.check_slide_count',
    });
    expect(instance.slideRange).toEqual({ min: 3, max: 5 });
    // judge.py truncates to the first item's max_count
    expect(instance.truncateTo).toBe(5);
    expect(instance.checklists.design).toHaveLength(3);
    expect(instance.checklists.fidelity).toHaveLength(5);
    expect(instance.weights).toEqual({
      material_independent: { '1': 10, '2': 30 },
      material_dependent: { '1': 20, '2': 25, '3': 15 },
    });
    expect(instance.language).toBe('en');
    expect(instance.requireSourceAttribution).toBe(true);
  });

  it('refuses an unknown callable by name instead of answering "no"', async () => {
    await expect(
      loadPresentBenchCase(DATA, join(DATA, 'education/Computer_science_lectures/ch2_bad_callable')),
    ).rejects.toThrow(
      /judge_prompt\.json: .*unknown PresentBench callable "utils\.layout\.check_fancy_layout"/,
    );
  });
});

describe('domain files PresentBench requires', () => {
  async function copyOfData(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
    const temp = await makeTempDir('xsb-pb-domain-');
    await cp(DATA, join(temp.dir, 'data'), { recursive: true });
    return { dir: join(temp.dir, 'data'), cleanup: temp.cleanup };
  }
  const caseIn = (root: string) => join(root, 'education/Computer_science_lectures/ch1_bits');

  it.each(['common_judge_prompt.json', 'judge_weights.yaml'])(
    'a missing %s is an error naming the file (never an empty prompt or equal weights)',
    async (name) => {
      const { dir, cleanup } = await copyOfData();
      try {
        await rm(join(dir, 'education', name));
        const failure = loadPresentBenchCase(dir, caseIn(dir));
        await expect(failure).rejects.toThrow(
          new RegExp(`${name.replace('.', '\\.')}.*missing ${name.replace('.', '\\.')}`),
        );
      } finally {
        await cleanup();
      }
    },
  );

  it('refuses unquoted class keys, which scoring.py would never match against judge.py results', async () => {
    const { dir, cleanup } = await copyOfData();
    try {
      await writeFile(
        join(dir, 'education/judge_weights.yaml'),
        'material_independent:\n  1: 10\n  "2": 30\nmaterial_dependent:\n  "1": 20\n  "2": 25\n  "3": 15\n',
      );
      await expect(loadPresentBenchCase(dir, caseIn(dir))).rejects.toThrow(
        /judge_weights\.yaml: material_independent: class key 1 is not a string/,
      );
    } finally {
      await cleanup();
    }
  });
});

describe('decodePresentBenchItem', () => {
  const where = { file: 'judge_prompt.json', key: 'k' };
  it('keeps strings and decodes a callable form', () => {
    expect(decodePresentBenchItem('Is it good?', where)).toBe('Is it good?');
    expect(
      decodePresentBenchItem(
        { __type__: 'callable', callable: 'utils.count_pages.check_slide_count' },
        where,
      ),
    ).toEqual({ check: 'slide_count', params: {}, source: 'utils.count_pages.check_slide_count' });
  });
  it('rejects other shapes', () => {
    expect(() => decodePresentBenchItem(42, where)).toThrow(/string or an encoded callable/);
    expect(() => decodePresentBenchItem({ __type__: 'lambda' }, where)).toThrow(/unknown encoded item type/);
  });
});

describe('readPresentBenchWeights', () => {
  it('reads unquoted numeric class ids as the string ids PresentBench looks up', async () => {
    const { dir, cleanup } = await makeTempDir();
    try {
      const file = join(dir, 'judge_weights.yaml');
      await writeFile(
        file,
        'material_independent:\n  1: 10\n  2: 30\nmaterial_dependent:\n  1: 20\n  2: 25\n  3: 15\ntotal: 100\n',
      );
      expect(await readPresentBenchWeights(file)).toEqual({
        material_independent: { '1': 10, '2': 30 },
        material_dependent: { '1': 20, '2': 25, '3': 15 },
        total: 100,
      });
      await writeFile(file, 'material_independent:\n  1: -3\nmaterial_dependent: {}\n');
      await expect(readPresentBenchWeights(file)).rejects.toThrow(/judge_weights\.yaml/);
    } finally {
      await cleanup();
    }
  });
});

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadInstanceAt } from './load-instance-at';

const FIXTURES = join(__dirname, '../../../fixtures/rubric');
const CASE = join(FIXTURES, 'presentbench-layout/data/education/Computer_science_lectures/ch1_bits');

describe('loadInstanceAt', () => {
  it('loads a case folder with the domain-level prompt and weights found above it', async () => {
    const instance = await loadInstanceAt(CASE);
    expect(instance.id).toBe('education/Computer_science_lectures/ch1_bits');
    expect(instance.prefixes.materialDependent).toContain('provided as File 1'); // from the domain file
    expect(instance.weights.material_independent).toEqual({ '1': 10, '2': 30 });
  });

  it('loads an instance file, and names a folder that is neither', async () => {
    const file = join(FIXTURES, 'appendix-cs-overview-ch1/instance.yaml');
    expect((await loadInstanceAt(file)).id).toBe('appendix-a2-computer-science-overview-ch1');
    await expect(loadInstanceAt(FIXTURES)).rejects.toThrow(/fixtures\/rubric: neither an instance file/);
  });
});

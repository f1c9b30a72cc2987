import { dirname, extname, resolve } from 'node:path';
import { readUtf8Text, ValidationError, validateRecord } from '@xsb/core';
import { parse as parseYaml } from 'yaml';
import { LAYOUT_CHECK_IDS } from './layout-checks';
import type { RubricSection } from './schemas/rubric-evaluation';
import {
  type RubricCategory,
  type RubricChecklistItem,
  type RubricClassWeights,
  type RubricDimension,
  rubricInstanceFileSchema,
} from './schemas/rubric-instance';

/** A loaded instance: paths absolute, instruction read, fidelity items expanded to slide_range.max. */
export interface RubricInstance {
  id: string;
  category: RubricCategory;
  language: string;
  /** Absolute material paths, in the order the judge sees them (File 2, File 3, ...). */
  materials: string[];
  instruction: string;
  slideRange: { min: number; max: number };
  /**
   * Decks longer than this are cut before judging; null = never cut. xsb instances: `slide_range.max`;
   * PresentBench cases: the `max_count` of the first item's slide-count partial (judge.py truncates only
   * then), else null.
   */
  truncateTo: number | null;
  prefixes: { materialIndependent: string; materialDependent: string };
  checklists: Record<Exclude<RubricDimension, 'fidelity'>, RubricChecklistItem[]> & { fidelity: string[] };
  weights: RubricClassWeights;
  requireSourceAttribution: boolean;
  /** Where the instance came from (instance file or PresentBench case folder). */
  origin: string;
}

/** Where each dimension sits in PresentBench's result layout. */
export const DIMENSION_CLASSES: Record<RubricDimension, { section: RubricSection; classId: string }> = {
  fundamentals: { section: 'material_independent', classId: '1' },
  design: { section: 'material_independent', classId: '2' },
  completeness: { section: 'material_dependent', classId: '1' },
  correctness: { section: 'material_dependent', classId: '2' },
  fidelity: { section: 'material_dependent', classId: '3' },
};

/** Equal class weights: the PresentBench weighted score then differs from the paper total only by tiering. */
export const EQUAL_CLASS_WEIGHTS: RubricClassWeights = {
  material_independent: { '1': 1, '2': 1 },
  material_dependent: { '1': 1, '2': 1, '3': 1 },
};

const FIDELITY_SLIDE_PLACEHOLDER = '{slide}';

/** Expands a per-slide template (`{slide}` → 1..max) the way the paper's f-string list does. */
function expandFidelityTemplate(template: string, maxSlides: number): string[] {
  return Array.from({ length: maxSlides }, (_, index) =>
    template.split(FIDELITY_SLIDE_PLACEHOLDER).join(String(index + 1)),
  );
}

/** Reads `instance.yaml|yml|json` in xsb's instance format and resolves its files. */
export async function loadRubricInstance(file: string): Promise<RubricInstance> {
  const text = await readUtf8Text(file);
  let parsed: unknown;
  try {
    parsed = ['.yaml', '.yml'].includes(extname(file).toLowerCase()) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new ValidationError(
      `not valid YAML/JSON (${(error as Error).message})`,
      { file },
      { cause: error },
    );
  }
  const record = validateRecord(rubricInstanceFileSchema, parsed, { file });
  // An unknown check id would otherwise surface mid-evaluation, after judge calls were paid for.
  for (const dimension of ['fundamentals', 'design', 'completeness', 'correctness'] as const) {
    record.checklists[dimension].forEach((item, index) => {
      if (typeof item !== 'string' && !(LAYOUT_CHECK_IDS as readonly string[]).includes(item.check)) {
        throw new ValidationError(`unknown check "${item.check}" (known: ${LAYOUT_CHECK_IDS.join(', ')})`, {
          file,
          field: `checklists.${dimension}[${index}].check`,
        });
      }
    });
  }
  const base = dirname(resolve(file));
  const instruction =
    record.instruction ?? (await readUtf8Text(resolve(base, record.instruction_file as string)));
  const fidelity = Array.isArray(record.checklists.fidelity)
    ? record.checklists.fidelity
    : expandFidelityTemplate(record.checklists.fidelity.template, record.slide_range.max);
  return {
    id: record.id,
    category: record.category,
    language: record.language,
    materials: record.materials.map((material) => resolve(base, material)),
    instruction,
    slideRange: record.slide_range,
    truncateTo: record.slide_range.max,
    prefixes: {
      materialIndependent: record.prefixes.material_independent,
      materialDependent: record.prefixes.material_dependent,
    },
    checklists: {
      fundamentals: record.checklists.fundamentals,
      design: record.checklists.design,
      completeness: record.checklists.completeness,
      correctness: record.checklists.correctness,
      fidelity,
    },
    weights: record.weights ?? EQUAL_CLASS_WEIGHTS,
    requireSourceAttribution: record.require_source_attribution,
    origin: resolve(file),
  };
}

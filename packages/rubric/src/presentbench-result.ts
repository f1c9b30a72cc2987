import {
  InputError,
  type RubricDimension,
  type RubricEvaluation,
  type RubricItemResult,
  type RubricSection,
  type RubricVerdict,
  readUtf8Text,
  ValidationError,
} from '@xsb/core';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { citedSlides } from './checklist-item-judge';
import { type PresentBenchResult, pythonString } from './presentbench-scoring';

const DIMENSION_OF: Record<RubricSection, Record<string, RubricDimension>> = {
  material_independent: { '1': 'fundamentals', '2': 'design' },
  material_dependent: { '1': 'completeness', '2': 'correctness', '3': 'fidelity' },
};

export interface PresentBenchItem {
  answer: string | null;
  explanation: string | null;
  log?: string;
}

/**
 * Our verdicts in PresentBench's result layout. An `error` item is written as PresentBench writes a
 * failed extraction (`answer: null` plus a `log`), or as "no" with `errorsAsNo`; `not_judged` items
 * are left out, so PresentBench's resume would judge them.
 */
export function toPresentBenchResult(
  evaluation: RubricEvaluation,
  options: { errorsAsNo?: boolean } = {},
): Record<RubricSection, Record<string, Record<string, PresentBenchItem>>> {
  const out: Record<RubricSection, Record<string, Record<string, PresentBenchItem>>> = {
    material_independent: {},
    material_dependent: {},
  };
  for (const item of evaluation.items) {
    if (item.verdict === 'not_judged') continue;
    const section = out[item.section];
    section[item.class_id] ??= {};
    const classItems = section[item.class_id] as Record<string, PresentBenchItem>;
    if (item.verdict === 'error') {
      classItems[item.key] = options.errorsAsNo
        ? { answer: 'no', explanation: item.explanation, log: 'unparseable judge answer counted as "no"' }
        : { answer: null, explanation: item.explanation, log: 'unparseable judge answer' };
    } else {
      classItems[item.key] = {
        answer: item.verdict === 'not_applicable' ? 'not applicable' : item.verdict,
        explanation: item.explanation,
      };
    }
  }
  return out;
}

/** YAML 1.1 output, so "yes"/"no" stay quoted strings when PyYAML (`yaml.safe_load`) reads them back. */
export function stringifyPresentBenchResult(result: object): string {
  return stringifyYaml(result, { version: '1.1', lineWidth: 0 });
}

/**
 * Reads a PresentBench result (or score-input) YAML the way PyYAML does (YAML 1.1: an unquoted `yes`
 * is a boolean, which scoring.py then never counts as "yes"). Mapping keys come back as strings
 * (`1:` → "1"), which is how PresentBench looks classes up.
 */
export async function readPresentBenchResult(file: string): Promise<PresentBenchResult> {
  let parsed: unknown;
  try {
    parsed = parseYaml(await readUtf8Text(file), { version: '1.1' });
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new ValidationError(`invalid YAML (${(error as Error).message})`, { file }, { cause: error });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ValidationError(
      'a PresentBench result must be a mapping with material_independent / material_dependent',
      {
        file,
      },
    );
  }
  const result = parsed as PresentBenchResult;
  if (!('material_independent' in result) && !('material_dependent' in result)) {
    throw new ValidationError('neither material_independent nor material_dependent is present', { file });
  }
  return result;
}

function verdictOf(answer: unknown): RubricVerdict {
  if (answer === null || answer === undefined) return 'error';
  const text = pythonString(answer).trim().toLowerCase();
  if (text === 'yes') return 'yes';
  if (text === 'no') return 'no';
  if (text === 'not applicable' || text === 'not\\ applicable') return 'not_applicable';
  return 'error';
}

/** PresentBench verdicts as our item results, so the paper's dimension scores can be computed from them. */
export function itemsFromPresentBenchResult(result: PresentBenchResult): RubricItemResult[] {
  const items: RubricItemResult[] = [];
  for (const section of ['material_independent', 'material_dependent'] as const) {
    const classes = result[section];
    if (classes === null || typeof classes !== 'object') continue;
    for (const [classId, classItems] of Object.entries(classes as Record<string, unknown>)) {
      const dimension = DIMENSION_OF[section][classId];
      if (!dimension || classItems === null || typeof classItems !== 'object') continue;
      for (const [key, entry] of Object.entries(classItems as Record<string, unknown>)) {
        if (entry === null || typeof entry !== 'object' || !/^\d+\.\d+$/.test(key)) continue;
        const { answer, explanation } = entry as { answer?: unknown; explanation?: unknown };
        const text = typeof explanation === 'string' ? explanation : null;
        items.push({
          key,
          section,
          class_id: classId,
          dimension,
          kind: text?.startsWith('[judged by code]') ? 'check' : 'llm',
          verdict: verdictOf(answer),
          raw_answer: answer === null || answer === undefined ? null : String(answer),
          explanation: text,
          cited_slides: text ? citedSlides(text) : [],
          attempts: 0,
        });
      }
    }
  }
  return items;
}

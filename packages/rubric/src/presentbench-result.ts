import { InputError, plural, ValidationError } from '@xsb/core';
import { stringify as stringifyYaml } from 'yaml';
import { pythonStrip, verdictOfStoredAnswer } from './boxed-verdict';
import { citedSlides } from './checklist-item-judge';
import type { PresentBenchResult } from './presentbench-scoring';
import { isPyMapping, pyGet, pyHasKey, pyItems, pyStr, pyTypeName, readPythonYaml } from './python-values';
import type {
  RubricEvaluation,
  RubricItemResult,
  RubricSection,
  RubricVerdict,
} from './schemas/rubric-evaluation';
import type { RubricDimension } from './schemas/rubric-instance';
import type { PresentBenchResultFile } from './schemas/rubric-presentbench';

const DIMENSION_OF: Record<RubricSection, Record<string, RubricDimension>> = {
  material_independent: { '1': 'fundamentals', '2': 'design' },
  material_dependent: { '1': 'completeness', '2': 'correctness', '3': 'fidelity' },
};

/** One item as judge.py stores it: answered `{answer, explanation}`, unanswered with `log`. */
export type PresentBenchItem = PresentBenchResultFile['material_independent'][string][string];

/**
 * How an unanswered (`error`) item is exported: `as-null` as judge.py stores a failed item
 * (`answer: null` + `log`, so PresentBench's resume judges it again; its scoring.py cannot score
 * the file until then), `as-no` as the answer "no" (scoring.py can score the file).
 */
export type ErrorExport = 'as-null' | 'as-no';

/** The answer PresentBench would store for an item (older evaluation files derive it from the verdict). */
export function storedAnswerOf(item: RubricItemResult): string | null {
  if (item.answer !== undefined) return item.answer;
  switch (item.verdict) {
    case 'yes':
    case 'no':
      return item.verdict;
    case 'not_applicable':
      return 'not applicable';
    case 'other':
      return item.raw_answer;
    default:
      return null;
  }
}

export const NOT_JUDGED_LOG =
  'not judged: the offline judge decides only the deterministic items; judge this item with a model';

/**
 * Our verdicts in judge.py's result layout, in checklist order. `not_judged` items (offline judge) are
 * written unanswered (`answer: null` + `log`) under either policy, so nothing unjudged looks answered
 * and PresentBench's resume judges them; `as-no` therefore refuses an evaluation that has any.
 */
export function toPresentBenchResult(
  evaluation: RubricEvaluation,
  options: { errors?: ErrorExport } = {},
): PresentBenchResultFile {
  const errors = options.errors ?? 'as-null';
  const notJudged = evaluation.items.filter((item) => item.verdict === 'not_judged').length;
  if (errors === 'as-no' && notJudged > 0) {
    throw new InputError(
      `${plural(notJudged, 'item')} ${notJudged === 1 ? 'was' : 'were'} not judged (offline judge ${evaluation.judge}); a file PresentBench's scoring.py can score needs every item answered: judge them with a model first`,
      { file: evaluation.deck_path },
    );
  }
  const out: PresentBenchResultFile = { material_independent: {}, material_dependent: {} };
  for (const item of evaluation.items) {
    out[item.section][item.class_id] ??= {};
    const classItems = out[item.section][item.class_id] as Record<string, PresentBenchItem>;
    classItems[item.key] = exportedItem(item, errors);
  }
  return out;
}

function exportedItem(item: RubricItemResult, errors: ErrorExport): PresentBenchItem {
  if (item.verdict === 'not_judged') return { answer: null, explanation: null, log: NOT_JUDGED_LOG };
  const answer = storedAnswerOf(item);
  if (answer !== null) return { answer, explanation: item.explanation };
  const log = item.log ?? `Failed to extract answer after ${item.attempts} attempts for item ${item.key}`;
  return errors === 'as-no'
    ? { answer: 'no', explanation: item.explanation, log: `${log} (exported as "no": --errors as-no)` }
    : { answer: null, explanation: item.explanation, log };
}

/** YAML 1.1 output, so "yes"/"no" and keys like "1" stay strings when PyYAML (`yaml.safe_load`) reads them. */
export function stringifyPresentBenchResult(result: object): string {
  return stringifyYaml(result, { version: '1.1', lineWidth: 0 });
}

/** True when every item carries an answer: PresentBench's `is_result_complete` over what is there. */
export function isResultAnswered(result: PresentBenchResultFile): boolean {
  return Object.values(result).every((classes) =>
    Object.values(classes).every((items) => Object.values(items).every((entry) => entry.answer !== null)),
  );
}

/**
 * Reads a PresentBench result YAML the way PyYAML does (`readPythonYaml`: YAML 1.1 scalars, typed
 * keys). A file that is not a mapping, or holds neither section, is refused naming the file.
 */
export async function readPresentBenchResult(file: string): Promise<PresentBenchResult> {
  const parsed = await readPythonYaml(file);
  if (!isPyMapping(parsed)) {
    throw new ValidationError(
      'a PresentBench result must be a mapping with material_independent / material_dependent',
      { file },
    );
  }
  if (!pyHasKey(parsed, 'material_independent') && !pyHasKey(parsed, 'material_dependent')) {
    throw new ValidationError('neither material_independent nor material_dependent is present', { file });
  }
  return parsed;
}

function importedVerdict(answer: unknown): RubricVerdict {
  if (typeof answer !== 'string') return 'error';
  if (pythonStrip(answer).toLowerCase() === 'not applicable') return 'not_applicable';
  return verdictOfStoredAnswer(answer);
}

/** PresentBench verdicts as our item results, so the paper's dimension scores can be computed from them. */
export function itemsFromPresentBenchResult(result: PresentBenchResult): RubricItemResult[] {
  const items: RubricItemResult[] = [];
  if (!isPyMapping(result)) return items;
  for (const section of ['material_independent', 'material_dependent'] as const) {
    const classes = pyGet(result, section);
    if (!isPyMapping(classes)) continue;
    for (const [classKey, classItems] of pyItems(classes)) {
      const classId = pyStr(classKey);
      const dimension = DIMENSION_OF[section][classId];
      if (!dimension || !isPyMapping(classItems)) continue;
      for (const [itemKey, entry] of pyItems(classItems)) {
        const key = pyStr(itemKey);
        if (!isPyMapping(entry) || !/^\d+\.\d+$/.test(key)) continue;
        const answer = pyHasKey(entry, 'answer') ? pyGet(entry, 'answer') : '';
        const explanation = pyGet(entry, 'explanation');
        const log = pyGet(entry, 'log');
        const text = typeof explanation === 'string' ? explanation : null;
        const unreadable =
          typeof answer === 'string'
            ? undefined
            : `answer is ${answer === null || answer === undefined ? 'null (unanswered)' : `a ${pyTypeName(answer)} (${pyStr(answer)}), not text`}`;
        items.push({
          key,
          section,
          class_id: classId,
          dimension,
          kind: text?.startsWith('[judged by code]') ? 'check' : 'llm',
          verdict: importedVerdict(answer),
          raw_answer: answer === null || answer === undefined ? null : pyStr(answer),
          answer: typeof answer === 'string' ? answer : null,
          explanation: text,
          cited_slides: text ? citedSlides(text) : [],
          attempts: 0,
          ...(typeof log === 'string' ? { log } : unreadable ? { log: unreadable } : {}),
        });
      }
    }
  }
  return items;
}

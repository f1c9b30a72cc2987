import { InputError } from '@xsb/core';
import type { RubricChecklistItem } from './schemas/rubric-instance';

/**
 * PresentBench callables (by qualified name) and the built-in check that decides the same question.
 * `check_slide_count(slides_path, min_count, max_count)` is the only callable the public evaluator
 * ships (utils/count_pages.py); its keywords carry over unchanged as our params.
 */
export const PRESENTBENCH_CALLABLES: Record<string, string> = {
  'utils.count_pages.check_slide_count': 'slide_count',
};

/**
 * Decodes one checklist entry of a `judge_prompt.json`: a string stays a judge question; an encoded
 * `{"__type__": "partial" | "callable", ...}` becomes a built-in check. PresentBench replaces an
 * undecodable callable with a stub answering "no"; here an unknown one is an error naming it.
 */
export function decodePresentBenchItem(
  entry: unknown,
  where: { file: string; key: string },
): RubricChecklistItem {
  if (typeof entry === 'string') return entry;
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
    throw new InputError(`${where.key}: checklist entry must be a string or an encoded callable`, {
      file: where.file,
    });
  }
  const encoded = entry as Record<string, unknown>;
  const type = encoded.__type__;
  if (type !== 'partial' && type !== 'callable') {
    throw new InputError(`${where.key}: unknown encoded item type ${JSON.stringify(type)}`, {
      file: where.file,
    });
  }
  const qualname = String((type === 'partial' ? encoded.func : encoded.callable) ?? '');
  const check = PRESENTBENCH_CALLABLES[qualname];
  if (!check) {
    throw new InputError(
      `${where.key}: unknown PresentBench callable "${qualname}" (known: ${Object.keys(PRESENTBENCH_CALLABLES).join(', ')})`,
      { file: where.file },
    );
  }
  const args = encoded.args ?? [];
  if (!Array.isArray(args) || args.length > 0) {
    throw new InputError(`${where.key}: positional args of "${qualname}" are not supported; use keywords`, {
      file: where.file,
    });
  }
  const keywords = encoded.keywords ?? {};
  if (keywords === null || typeof keywords !== 'object' || Array.isArray(keywords)) {
    throw new InputError(`${where.key}: partial.keywords must be an object`, { file: where.file });
  }
  return { check, params: { ...(keywords as Record<string, unknown>) }, source: qualname };
}

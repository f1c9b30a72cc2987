import type { z } from 'zod';
import { ValidationError } from './errors';
import { plural } from './plural';

/** Dotted path of a zod issue, e.g. `evidence[0].text`; empty for the record itself. */
export function formatIssuePath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let current = root;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[part];
  }
  return current;
}

/** On failure, a ValidationError naming the file, the line and the first failing field. */
export function validateRecord<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: { file?: string; line?: number } = {},
): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue ? formatIssuePath(issue.path) : undefined;
  const missing =
    issue && issue.path.length > 0 && valueAt(value, issue.path) === undefined
      ? 'is required but missing'
      : (issue?.message ?? 'invalid');
  const more =
    result.error.issues.length > 1 ? ` (and ${plural(result.error.issues.length - 1, 'more problem')})` : '';
  throw new ValidationError(`${missing}${more}`, { ...where, ...(field ? { field } : {}) });
}

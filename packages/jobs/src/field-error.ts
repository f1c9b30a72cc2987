import { InputError, portableNameSchema, type XsbErrorCode } from '@xsb/core';

/** A request field that cannot be used: an InputError naming the field (the API answers 400). */
export function fieldError(field: string, message: string, code: XsbErrorCode = 'invalid_field'): InputError {
  return new InputError(`field "${field}": ${message}`, { code, details: { field } });
}

/** A name that becomes a path part: `[A-Za-z0-9._-]`, never `..` (see `portableNameSchema`). */
export function portableName(field: string, value: string | undefined, fallback?: string): string {
  const chosen = value === undefined || value === '' ? fallback : value;
  if (chosen === undefined) throw fieldError(field, 'is required');
  const parsed = portableNameSchema.safeParse(chosen);
  if (!parsed.success) {
    throw fieldError(field, `${JSON.stringify(chosen.slice(0, 80))} ${parsed.error.issues[0]!.message}`);
  }
  return parsed.data;
}

/** Names listed for an error message: the first few, sorted, and how many more. */
export function listNames(names: readonly string[], max = 20): string {
  if (names.length === 0) return 'none';
  const sorted = [...names].sort();
  const shown = sorted.slice(0, max).join(', ');
  return sorted.length > max ? `${shown}, … (${sorted.length - max} more)` : shown;
}

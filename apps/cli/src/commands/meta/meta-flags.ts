import { UsageError } from '@xsb/core';

/** A number flag within [min, max]; bad input is a usage error (exit 2). */
export function numberFlag(
  flag: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < min || number > max) {
    throw new UsageError(`${flag} must be a number from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return number;
}

/** A comma-separated list flag whose entries must come from `allowed`. */
export function choiceList<T extends string>(
  flag: string,
  values: string[] | undefined,
  allowed: readonly T[],
): T[] | undefined {
  if (!values || values.length === 0) return undefined;
  const unknown = values.filter((value) => !allowed.includes(value as T));
  if (unknown.length > 0)
    throw new UsageError(
      `${flag}: unknown ${unknown.map((value) => JSON.stringify(value)).join(', ')} (known: ${allowed.join(', ')})`,
    );
  return values as T[];
}

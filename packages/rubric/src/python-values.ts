import { InputError, readUtf8Text, ValidationError } from '@xsb/core';
import { parse as parseYaml } from 'yaml';

/**
 * PresentBench's files as Python sees them. `yaml.safe_load` gives YAML 1.1 scalars (an unquoted `yes`
 * is `True`), keeps mapping order and key types (`1:` is the int 1, `'1':` the str "1"), and tells ints
 * from floats. Read with `mapAsMap` + `intAsBigInt`, a mapping is a `Map` keyed by typed values and an
 * int is a `bigint`; objects built in memory (our own exports) are plain records keyed by strings.
 */
export type PyValue = unknown;

export async function readPythonYaml(file: string): Promise<PyValue> {
  const text = await readUtf8Text(file);
  try {
    return parseYaml(text, { version: '1.1', mapAsMap: true, intAsBigInt: true });
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new ValidationError(`invalid YAML (${(error as Error).message})`, { file }, { cause: error });
  }
}

export function isPyMapping(value: PyValue): value is Map<unknown, unknown> | Record<string, unknown> {
  return (
    value instanceof Map ||
    (value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date))
  );
}

/** `d.items()`, in insertion order. */
export function pyItems(mapping: Map<unknown, unknown> | Record<string, unknown>): Array<[unknown, unknown]> {
  return mapping instanceof Map ? [...mapping.entries()] : Object.entries(mapping);
}

function numericKey(value: unknown): number | undefined {
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return undefined;
}

/** Python `==` between two dict keys (1 == 1.0 == True; "1" != 1). */
export function pyKeyEquals(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  if (a === null || b === null) return a === b;
  const x = numericKey(a);
  const y = numericKey(b);
  return x !== undefined && y !== undefined && x === y;
}

/** `d.get(key, fallback)`. */
export function pyGet(mapping: Map<unknown, unknown> | Record<string, unknown>, key: unknown): unknown {
  if (mapping instanceof Map) {
    for (const [candidate, value] of mapping) if (pyKeyEquals(candidate, key)) return value;
    return undefined;
  }
  return typeof key === 'string' && Object.hasOwn(mapping, key) ? mapping[key] : undefined;
}

export function pyHasKey(mapping: Map<unknown, unknown> | Record<string, unknown>, key: unknown): boolean {
  if (mapping instanceof Map) return [...mapping.keys()].some((candidate) => pyKeyEquals(candidate, key));
  return typeof key === 'string' && Object.hasOwn(mapping, key);
}

/**
 * Python's `repr(float)`: the shortest digits that round-trip (as JavaScript finds them), laid out as
 * Python does — positional for exponents -4..15 with at least one decimal, else `1e-05` / `1e+16`.
 */
export function pythonFloatRepr(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const [mantissa, exponentText] = Math.abs(value).toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  const digits = mantissa.replace('.', '');
  const sign = value < 0 ? '-' : '';
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
    const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
    const fraction = digits.slice(exponent + 1);
    return `${sign}${whole}.${fraction || '0'}`;
  }
  const shown = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const magnitude = String(Math.abs(exponent)).padStart(2, '0');
  return `${sign}${shown}e${exponent < 0 ? '-' : '+'}${magnitude}`;
}

/** `str(x)` of a dict key or scalar. */
export function pyStr(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return pythonFloatRepr(value);
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value === null || value === undefined) return 'None';
  return String(value);
}

/** Python's type name, for the error messages scoring.py would raise. */
export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return 'float';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Date) return 'datetime';
  return 'dict';
}

const PY_FLOAT_TEXT = /^[+-]?(?:(?:\d(?:_?\d)*)?\.?\d(?:_?\d)*(?:[eE][+-]?\d(?:_?\d)*)?|inf(?:inity)?|nan)$/i;

/** `float(x)`; undefined where Python raises (None, a non-numeric string, a list …). */
export function pyFloat(value: unknown): number | undefined {
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    const text = value.trim();
    if (!PY_FLOAT_TEXT.test(text)) return undefined;
    const lower = text.toLowerCase().replace(/_/g, '');
    if (/inf/.test(lower)) return lower.startsWith('-') ? -Infinity : Infinity;
    if (/nan/.test(lower)) return Number.NaN;
    return Number(lower);
  }
  return undefined;
}

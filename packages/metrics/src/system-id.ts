import { assertSafePathPart } from '@xsb/core/basics';

/** Separates system and condition in a system id; a system or condition name may not contain it. */
export const SYSTEM_ID_SEPARATOR = '__';

/**
 * The aggregation identity of a deck producer: `<system>__<condition>` (e.g.
 * `xsb-baseline__audience_agnostic`), because the same generator run agnostic and conditioned are two
 * systems to compare. Compact metric files live under `metrics/<system_id>/…`.
 */
export function systemIdFor(system: string, condition: string): string {
  return assertSafePathPart(`${system}${SYSTEM_ID_SEPARATOR}${condition}`, 'system id');
}

/** Splits a system id written by {@link systemIdFor}; other ids have no known condition. */
export function splitSystemId(systemId: string): { system: string; condition: string | null } {
  const at = systemId.lastIndexOf(SYSTEM_ID_SEPARATOR);
  if (at <= 0) return { system: systemId, condition: null };
  return { system: systemId.slice(0, at), condition: systemId.slice(at + SYSTEM_ID_SEPARATOR.length) };
}

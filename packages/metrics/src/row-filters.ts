import { compareCodePoints, UsageError } from '@xsb/core/basics';

/** The selection flags of `xsb eval|metrics|aggregate`: rows (or jobs) whose identity is listed. */
export interface RowFilters {
  systems?: readonly string[];
  conditions?: readonly string[];
  audiences?: readonly string[];
  cases?: readonly string[];
}

/** The identity a filter is checked against; null parts (unknown) pass every filter. */
export interface FilterableIdentity {
  system: string | null;
  condition: string | null;
  audience: string | null;
  case_label: string | null;
}

const FILTER_FIELDS = [
  ['systems', 'system', 'system'],
  ['conditions', 'condition', 'condition'],
  ['audiences', 'audience', 'audience'],
  ['cases', 'case_label', 'case'],
] as const;

/** An empty or missing filter allows everything. */
export function filterAllows(filter: readonly string[] | undefined, value: string | null): boolean {
  return !filter || filter.length === 0 || value === null || filter.includes(value);
}

export function matchesFilters(filters: RowFilters, identity: FilterableIdentity): boolean {
  return FILTER_FIELDS.every(([key, field]) => filterAllows(filters[key], identity[field]));
}

export const hasFilters = (filters: RowFilters | undefined): boolean =>
  FILTER_FIELDS.some(([key]) => (filters?.[key]?.length ?? 0) > 0);

/**
 * A filter value that names nothing there is is a usage error (exit 2) listing the known values, as
 * `xsb probes --case` does: a typo must not look like a selection with nothing to do. `where` says
 * what was searched (`in run "demo"`).
 */
export function assertFiltersMatch(
  filters: RowFilters,
  known: Iterable<FilterableIdentity>,
  where: string,
): void {
  const identities = [...known];
  for (const [key, field, name] of FILTER_FIELDS) {
    const wanted = filters[key];
    if (!wanted || wanted.length === 0) continue;
    const values = new Set(
      identities.map((identity) => identity[field]).filter((v): v is string => v !== null),
    );
    const unknown = [...new Set(wanted)].filter((value) => !values.has(value));
    if (unknown.length > 0)
      throw new UsageError(
        `unknown ${name} ${unknown.map((value) => JSON.stringify(value)).join(', ')} ${where} ` +
          `(known: ${[...values].sort(compareCodePoints).join(', ') || 'none'})`,
      );
  }
}

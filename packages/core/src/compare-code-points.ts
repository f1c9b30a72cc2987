/**
 * String order by UTF-16 code units, like Python's `sorted`: unlike `localeCompare`, it does not
 * depend on the machine's locale, so listings and CSVs come out in the same order everywhere.
 */
export function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

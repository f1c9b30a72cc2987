/** By UTF-16 code units like Python's `sorted`: unlike `localeCompare`, the same on every machine. */
export function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

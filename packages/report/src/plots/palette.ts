/** Tableau 10: distinguishable colours for systems, assigned in sorted order. */
const TABLEAU10 = [
  '#4e79a7',
  '#f28e2b',
  '#e15759',
  '#76b7b2',
  '#59a14f',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
];

export function paletteFor(names: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    names.map((name, index) => [name, TABLEAU10[index % TABLEAU10.length] as string]),
  );
}

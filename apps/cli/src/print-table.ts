/** Aligned columns; without `rightAligned`, every later column whose cells are all numbers is right-aligned. */
export function printTable(
  print: (line: string) => void,
  header: string[],
  cells: string[][],
  rightAligned?: number[],
): void {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((line) => line[column]!.length)),
  );
  const alignRight = (column: number) =>
    rightAligned
      ? rightAligned.includes(column)
      : column > 0 && cells.every((line) => /^\d+(\.\d+)?$/.test(line[column]!));
  const format = (line: string[]) =>
    line
      .map((cell, column) =>
        alignRight(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!),
      )
      .join('  ')
      .trimEnd();
  print(format(header));
  for (const line of cells) print(format(line));
}

/** Case-insensitive optimal string alignment distance: `inptu` is one edit from `input`. */
export function editDistance(a: string, b: string): number {
  const left = a.toLowerCase();
  const right = b.toLowerCase();
  const rows: number[][] = [Array.from({ length: right.length + 1 }, (_, index) => index)];
  for (let i = 1; i <= left.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= right.length; j += 1) {
      const cost = left[i - 1] === right[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && left[i - 1] === right[j - 2] && left[i - 2] === right[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      row.push(best);
    }
    rows.push(row);
  }
  return rows[left.length]![right.length]!;
}

/** A likely typo differs in at most a third of the longer name's characters; ties go to the first name. */
export function nearestName(value: string, known: Iterable<string>): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(value, name);
    const allowed = Math.max(1, Math.floor(Math.max(value.length, name.length) / 3));
    if (distance <= allowed && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** ` (did you mean "x"?)` for the nearest known name, or '' when none is near. */
export function didYouMean(value: string, known: Iterable<string>): string {
  const nearest = nearestName(value, known);
  return nearest === undefined ? '' : ` (did you mean "${nearest}"?)`;
}

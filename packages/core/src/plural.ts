/** `plural(1, 'case')` → "1 case", `plural(3, 'batch', 'batches')` → "3 batches". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

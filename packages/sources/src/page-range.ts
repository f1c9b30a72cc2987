import { UsageError } from '@xsb/core';

/** `spec` is the canonical spelling (`1-5,9`) recorded in `source_context.json`; pages ascend, each once. */
export interface PageRange {
  spec: string;
  pages: number[];
}

/** `1-40`, `1-5,9`, `3`: 1-based pages and inclusive ranges; overlaps merge. */
export function parsePageRange(value: string, flag = 'page range'): PageRange {
  const fail = (why: string): never => {
    throw new UsageError(`${flag} ${JSON.stringify(value)}: ${why}; write pages like 1-40 or 1-5,9`);
  };
  const pages = new Set<number>();
  const parts = value.split(',').map((part) => part.trim());
  for (const part of parts) {
    const match = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(part);
    if (!match) fail(part === '' ? 'an empty item' : `${JSON.stringify(part)} is not a page or a range`);
    const first = Number(match![1]);
    const last = match![2] === undefined ? first : Number(match![2]);
    if (first === 0 || last === 0) fail('pages are numbered from 1');
    if (last < first) fail(`the range ${part} runs backwards`);
    if (last - first > 100_000) fail(`the range ${part} is too long`);
    for (let page = first; page <= last; page += 1) pages.add(page);
  }
  const sorted = [...pages].sort((a, b) => a - b);
  return { spec: formatPages(sorted), pages: sorted };
}

export function assertPagesExist(range: PageRange, pageCount: number, file: string): void {
  const beyond = range.pages.filter((page) => page > pageCount);
  if (beyond.length > 0) {
    throw new UsageError(
      `page range ${range.spec}: ${file} has ${pageCount} page${pageCount === 1 ? '' : 's'}, so page ${beyond[0]} does not exist`,
    );
  }
}

function formatPages(pages: number[]): string {
  const runs: string[] = [];
  let start = 0;
  for (let i = 1; i <= pages.length; i += 1) {
    if (i < pages.length && pages[i] === pages[i - 1]! + 1) continue;
    const first = pages[start]!;
    const last = pages[i - 1]!;
    runs.push(first === last ? String(first) : `${first}-${last}`);
    start = i;
  }
  return runs.join(',');
}

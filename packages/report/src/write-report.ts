import { writeFileAtomic } from '@xsb/core';
import type { ThumbnailCounts } from './deck/load-decks';
import type { ReportResult } from './report-options';

/** Writes the report atomically when `out` is given and says what was built. */
export async function finishReport(
  html: string,
  out: string | undefined,
  problems: string[],
  thumbnails: ThumbnailCounts,
): Promise<ReportResult> {
  if (out) await writeFileAtomic(out, html);
  return { html, file: out ?? null, bytes: Buffer.byteLength(html), problems, thumbnails };
}

import type { ThumbnailCounts } from './deck/load-decks';
import type { ThumbnailSize } from './thumbnails/slide-thumbnails';

/** What every report builder takes. */
export interface ReportOptions {
  /** `off`, `small` (default, 320 px WebP) or `large` (800 px). */
  thumbnails?: ThumbnailSize;
  /** Write the HTML here (atomically); nothing is written without it. */
  out?: string;
  /** Thumbnail cache folder (default: beside the artifacts, see each builder). */
  cacheDir?: string;
  /** `soffice` for PPTX thumbnails (default `$XSB_SOFFICE`, else PATH). */
  soffice?: string;
  env?: Record<string, string | undefined>;
}

export interface ReportResult {
  html: string;
  /** Where it was written, or null. */
  file: string | null;
  bytes: number;
  /** Rows or files that could not be read: each is shown in the report too. */
  problems: string[];
  thumbnails: ThumbnailCounts;
}

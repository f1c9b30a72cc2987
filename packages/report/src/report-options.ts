import type { ThumbnailCounts } from './deck/load-decks';
import type { ThumbnailSize } from './thumbnails/slide-thumbnails';

export interface ReportOptions {
  /** `off`, `small` (default, 320 px WebP) or `large` (800 px). */
  thumbnails?: ThumbnailSize;
  /** Written atomically; nothing is written without it. */
  out?: string;
  /** Thumbnail cache folder (default: beside the artifacts, see each builder). */
  cacheDir?: string;
  /** `soffice` for PPTX thumbnails (default `$XSB_SOFFICE`, else PATH). */
  soffice?: string;
  env?: Record<string, string | undefined>;
}

export interface ReportResult {
  html: string;
  file: string | null;
  bytes: number;
  /** Also shown in the report. */
  problems: string[];
  thumbnails: ThumbnailCounts;
}

export { parseCitedSlides } from './deck/cited-slides';
export { escapeHtml } from './html/escape-html';
export { REPORT_CSP } from './html/html-document';
export type { ReportOptions, ReportResult } from './report-options';
export { buildRunReport, type RunReportOptions, runReportCacheDir } from './run/build-run-report';
export { OFFLINE_JUDGE_WARNING } from './run/run-header';
export { THIN_GROUP_MIN_INCLUDED_PROBES } from './run/run-groups';
export { renderVegaLiteSvg } from './plots/render-vega-lite';
export {
  type DeckThumbnails,
  prepareThumbnails,
  THUMBNAIL_FORMATS,
  THUMBNAIL_SIZES,
  type ThumbnailSize,
} from './thumbnails/slide-thumbnails';

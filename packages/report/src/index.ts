export { type BenchReportOptions, buildBenchReport } from './bench/build-bench-report';
export { parseCitedSlides } from './deck/cited-slides';
export { escapeHtml } from './html/escape-html';
export { REPORT_CSP } from './html/html-document';
export { renderVegaLiteSvg } from './plots/render-vega-lite';
export type { ReportOptions, ReportResult } from './report-options';
export {
  buildRubricReport,
  RUBRIC_OFFLINE_WARNING,
  type RubricReportOptions,
} from './rubric/build-rubric-report';
export { findRubricSummaries } from './rubric/read-rubric-report-data';
export { buildRunReport, type RunReportOptions, runReportCacheDir } from './run/build-run-report';
export { OFFLINE_JUDGE_WARNING } from './run/run-header';
export {
  type DeckThumbnails,
  parseThumbnailSize,
  prepareThumbnails,
  THUMBNAIL_FORMATS,
  THUMBNAIL_SIZES,
  type ThumbnailRequest,
  type ThumbnailSize,
} from './thumbnails/slide-thumbnails';
export { listReports, type ReportEntry, type ReportKind } from './viewer/list-reports';
export {
  DEFAULT_VIEWER_PORT,
  type ReportViewer,
  type ReportViewerOptions,
  startReportViewer,
} from './viewer/start-report-viewer';

export { buildBenchReport } from './bench/build-bench-report';
export { buildRubricReport } from './rubric/build-rubric-report';
export { findRubricSummaries } from './rubric/read-rubric-report-data';
export { buildRunReport } from './run/build-run-report';
export { buildStudyReport, type StudyReportOptions } from './study/build-study-report';
export { parseThumbnailSize } from './thumbnails/slide-thumbnails';
export { startReportViewer } from './viewer/start-report-viewer';

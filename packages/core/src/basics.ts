// The parts of @xsb/core that load no npm package (no zod, no yaml). Light packages such as @xsb/metrics
// import these from here so that importing them costs milliseconds, not the ~100 ms zod takes to load;
// they reach the schemas and JSON files through `@xsb/core` only when a function that reads files runs.
export { compareCodePoints } from './compare-code-points';
export { emptyProbeBankNote } from './empty-probe-bank-note';
export {
  ConfigError,
  describeError,
  exitCodeFor,
  InputError,
  InternalError,
  isXsbError,
  ProviderError,
  type Remedy,
  stopsTheRun,
  UsageError,
  ValidationError,
  XSB_ERROR_CODES,
  XsbError,
  type XsbErrorCode,
} from './errors';
export { assertSafePathPart, RunLayout } from './run-layout';
export { createSeededRandom, deriveSeed } from './seeded-random';
export { XSB_VERSION } from './version';

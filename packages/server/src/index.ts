export { ApiHttpError, toApiError } from './api-error';
export {
  API_PROCESS_INDEX_VARIABLE,
  type ApiCluster,
  type ApiClusterOptions,
  apiClusterIndex,
  reportClusterStop,
  startApiCluster,
} from './api-process-cluster';
export {
  type ApiToken,
  authenticate,
  mergeTokens,
  parseTokenList,
  TOKENS_VARIABLE,
  tokensFromConfig,
} from './api-tokens';
export {
  type ApiApp,
  type ApiAppOptions,
  createApiApp,
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
} from './create-api-app';
export { RequestRateLimiter } from './rate-limiter';
export { type ServedApi, serveApiProcesses } from './serve-api-processes';
export {
  type ApiServer,
  checkServerSecurity,
  isLoopbackHost,
  type StartApiServerOptions,
  startApiServer,
} from './start-api-server';

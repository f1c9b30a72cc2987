export { ApiHttpError, toApiError } from './api-error';
export { apiClusterIndex, reportClusterStop, startApiCluster } from './api-process-cluster';
export { authenticate, mergeTokens, parseTokenList, TOKENS_VARIABLE, tokensFromConfig } from './api-tokens';
export { createApiApp } from './create-api-app';
export { RequestRateLimiter } from './rate-limiter';
export { type ServedApi, serveApiProcesses } from './serve-api-processes';
export { checkServerSecurity, startApiServer } from './start-api-server';

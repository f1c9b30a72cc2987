export { mergeTokens, parseTokenList, TOKENS_VARIABLE, tokensFromConfig } from './api-tokens';
export { createApiApp } from './create-api-app';
export { type ServedApi, serveApiProcesses } from './serve-api-processes';
export { startApiServer } from './start-api-server';

import { randomUUID } from 'node:crypto';
import { getConnInfo } from '@hono/node-server/conninfo';
import { OpenAPIHono } from '@hono/zod-openapi';
import { type ApiScope, describeError } from '@xsb/core';
import type { JobEvents, JobStore, JsonLogger } from '@xsb/jobs';
import type { Context, MiddlewareHandler } from 'hono';
import { ApiHttpError, errorResponse, invalidField, notFound, toApiError } from './api-error';
import { type ApiToken, authenticate } from './api-tokens';
import { type OpenApiDocumentView, renderDocsPage } from './docs-page';
import { RequestRateLimiter } from './rate-limiter';
import { registerEvaluationRoutes } from './routes/evaluation-routes';
import { registerHealthRoutes } from './routes/health-routes';
import { registerJobRoutes } from './routes/job-routes';
import { registerRunRoutes } from './routes/run-routes';

const API_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'xsb API',
    version: '1',
    description:
      'The xsb evaluations over HTTP: post a deck, get stage 5–6 metrics (or rubric scores) back from a durable job.',
    license: { name: 'MIT', identifier: 'MIT' },
  },
  servers: [{ url: 'http://127.0.0.1:8787', description: 'xsb serve on its default address' }],
};

export interface ApiAppOptions {
  dataDir: string;
  store: JobStore;
  /** With none, every request is let in (only with `insecureLocal`). */
  tokens: readonly ApiToken[];
  /** Allows a server without tokens, only on a loopback host. */
  insecureLocal?: boolean;
  /** The server's environment: where judges find their keys (never in a request). */
  env: Record<string, string | undefined>;
  /** Where uploads stream to (on the data folder's file system, so accepting one is a rename). */
  tmpDir: string;
  bodyLimitBytes?: number;
  rateLimitPerMinute?: number;
  /** Failed authentications per client address and minute (default 30); past it, 429. */
  authFailuresPerMinute?: number;
  /** Polling interval of the job event stream (default 250 ms). */
  eventsIntervalMs?: number;
  /** The stage events of the jobs this process runs; jobs run by other processes send only `job` events. */
  events?: JobEvents;
  isDraining?: () => boolean;
  logger?: JsonLogger;
  /** The clock of the rate limiters (tests). */
  now?: () => number;
  /** Config `api.systems`; unset: any portable name. */
  systems?: readonly string[];
}

export interface ApiEnv {
  // The principal's name is null on an insecure local server, which sees everything.
  Variables: {
    token: ApiToken | null;
    principal: { name: string | null; admin: boolean };
    requestId: string;
  };
}

export type ApiApp = OpenAPIHono<ApiEnv>;

function scopeAllows(scopes: ReadonlySet<ApiScope>, method: string): boolean {
  if (scopes.has('admin') && method !== 'POST') return true;
  return scopes.has(method === 'GET' || method === 'HEAD' ? 'read' : 'evaluate');
}

function neededScope(method: string): string {
  if (method === 'GET' || method === 'HEAD') return '"read" (or "admin")';
  return method === 'POST' ? '"evaluate"' : '"evaluate" (or "admin")';
}

// The socket's address: no proxy header is trusted.
function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * Token, scope, rate limit, then a POST's drain and size checks, in one layer: each hono layer costs a
 * closure and a promise per request. A preflight (OPTIONS) needs no token and gets no CORS grant.
 */
function v1Middleware(
  options: ApiAppOptions,
  limiter: RequestRateLimiter,
  authFailures: RequestRateLimiter,
  bodyLimitBytes: number,
): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const method = c.req.method;
    if (method === 'OPTIONS') {
      c.header('Allow', 'GET, HEAD, POST, DELETE, OPTIONS');
      return c.body(null, 204);
    }
    let token: ApiToken | null = null;
    if (options.tokens.length > 0 || !options.insecureLocal) {
      const presented = c.req.header('authorization');
      const found = authenticate(presented, options.tokens);
      if (!found) {
        takeOrRefuse(authFailures, clientAddress(c), 'too many failed authentications from this address');
        throw new ApiHttpError(
          401,
          'unauthorized',
          presented ? 'the bearer token is not valid' : 'send a bearer token: Authorization: Bearer <token>',
          { 'WWW-Authenticate': 'Bearer realm="xsb"' },
        );
      }
      if (!scopeAllows(found.scopes, method))
        throw new ApiHttpError(
          403,
          'forbidden',
          `the token "${found.name}" lacks the ${neededScope(method)} scope`,
        );
      token = found;
    }
    takeOrRefuse(limiter, token?.name ?? 'anonymous', `more than ${limiter.perMinute} requests per minute`);
    if (method === 'POST') refuseEarlyPost(c, options, bodyLimitBytes);
    c.set('token', token);
    c.set(
      'principal',
      token ? { name: token.name, admin: token.scopes.has('admin') } : { name: null, admin: true },
    );
    await next();
  };
}

function takeOrRefuse(limiter: RequestRateLimiter, client: string, why: string): void {
  const verdict = limiter.take(client);
  if (!verdict.allowed)
    throw new ApiHttpError(429, 'rate_limited', `${why}; retry in ${verdict.retryAfterSeconds} s`, {
      'Retry-After': String(verdict.retryAfterSeconds),
    });
}

function refuseEarlyPost(c: Context, options: ApiAppOptions, bodyLimitBytes: number): void {
  if (options.isDraining?.())
    throw new ApiHttpError(
      503,
      'draining',
      'the server is shutting down; retry on another instance or later',
      {
        'Retry-After': '5',
      },
    );
  const declared = Number(c.req.header('content-length') ?? '0');
  if (Number.isFinite(declared) && declared > bodyLimitBytes)
    throw new ApiHttpError(
      413,
      'payload_too_large',
      `Content-Length ${declared} is larger than the limit of ${bodyLimitBytes} bytes`,
      { Connection: 'close' },
    );
}

// One JSON access-log line per request: each field a JSON string, so nothing in a URL can forge a line.
function requestIdMiddleware(logger: JsonLogger | undefined): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const requestId = randomUUID();
    c.set('requestId', requestId);
    c.header('X-Request-Id', requestId);
    const started = performance.now();
    await next();
    if (!logger) return;
    const token = c.get('token');
    logger.info(
      {
        req_id: requestId,
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Number((performance.now() - started).toFixed(1)),
        ...(token ? { token: token.name } : {}),
        client: clientAddress(c),
      },
      'request',
    );
  };
}

/** The xsb HTTP API as a hono app over one data folder and one job store (OpenAPI 3.1 at `/openapi.json`). */
export function createApiApp(options: ApiAppOptions): ApiApp {
  const bodyLimitBytes = options.bodyLimitBytes ?? 100_000_000;
  const now = options.now ?? Date.now;
  const limiter = new RequestRateLimiter(options.rateLimitPerMinute ?? 600, now);
  const authFailures = new RequestRateLimiter(options.authFailuresPerMinute ?? 30, now);
  const app: ApiApp = new OpenAPIHono<ApiEnv>({
    defaultHook: (result, c) => {
      if (result.success) return;
      const issue = result.error.issues[0];
      const field = issue?.path.join('.') || 'request';
      return errorResponse(c as Context, invalidField(`field "${field}": ${issue?.message ?? 'is invalid'}`));
    },
  });
  const { logger } = options;
  app.use('*', requestIdMiddleware(logger));
  app.onError((error, c) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500)
      logger?.error(
        { req_id: c.get('requestId'), method: c.req.method, path: c.req.path, err: describeError(error) },
        'request failed on the server',
      );
    return errorResponse(c, apiError);
  });
  app.notFound((c) => errorResponse(c, notFound(`no route ${c.req.method} for this path`)));

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description:
      'A token of XSB_API_TOKENS: `evaluate` to post jobs and cancel its own, `read` to read its own jobs and the runs, `admin` to read and cancel every job.',
  });
  registerHealthRoutes(app, options);
  app.doc31('/openapi.json', API_DOCUMENT);
  app.get('/docs', (c) =>
    c.html(renderDocsPage(app.getOpenAPI31Document(API_DOCUMENT) as OpenApiDocumentView)),
  );

  app.use('/v1/*', v1Middleware(options, limiter, authFailures, bodyLimitBytes));
  registerEvaluationRoutes(app, { ...options, bodyLimitBytes });
  registerJobRoutes(app, options);
  registerRunRoutes(app, options);
  return app;
}

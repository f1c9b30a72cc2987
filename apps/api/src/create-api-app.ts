import { OpenAPIHono } from '@hono/zod-openapi';
import type { ApiScope } from '@xsb/core';
import type { JobStore } from '@xsb/jobs';
import type { Context, MiddlewareHandler } from 'hono';
import { ApiHttpError, errorResponse, toApiError } from './api-error';
import { type ApiToken, authenticate } from './api-tokens';
import { type OpenApiDocumentView, renderDocsPage } from './docs-page';
import { RequestRateLimiter } from './rate-limiter';
import { registerEvaluationRoutes } from './routes/evaluation-routes';
import { registerHealthRoutes } from './routes/health-routes';
import { registerJobRoutes } from './routes/job-routes';
import { registerRunRoutes } from './routes/run-routes';

export const DEFAULT_BODY_LIMIT_BYTES = 100_000_000;
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;

/** The head of the OpenAPI document. */
export const API_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'xsb API',
    version: '1',
    description:
      'The xsb evaluations over HTTP: post a deck, get stage 5–6 metrics (or rubric scores) back from a durable job.',
  },
};

export interface ApiAppOptions {
  dataDir: string;
  store: JobStore;
  /** Accepted bearer tokens; with none, every request is let in (only with `insecureLocal`). */
  tokens: readonly ApiToken[];
  insecureLocal?: boolean;
  /** The server's environment: where judges find their keys (never in a request). */
  env: Record<string, string | undefined>;
  /** Where uploads stream to before they are checked (on the data folder's file system). */
  tmpDir: string;
  bodyLimitBytes?: number;
  rateLimitPerMinute?: number;
  /** Polling interval of the job event stream (default 250 ms). */
  eventsIntervalMs?: number;
  /** True while SIGTERM drains: new work is refused with 503. */
  isDraining?: () => boolean;
  log?: (line: string) => void;
}

export interface ApiEnv {
  Variables: { token: ApiToken | null };
}

export type ApiApp = OpenAPIHono<ApiEnv>;

/** The route's scope: reads need `read`, everything that makes or cancels work needs `evaluate`. */
function scopeFor(method: string): ApiScope {
  return method === 'GET' || method === 'HEAD' ? 'read' : 'evaluate';
}

/**
 * Everything a `/v1` request passes before its route, in one layer (each hono layer costs a closure
 * and a promise per request): the bearer token and its scope, the token's rate limit, then for a POST
 * the drain refusal and the declared body size.
 */
function v1Middleware(
  options: ApiAppOptions,
  limiter: RequestRateLimiter,
  bodyLimitBytes: number,
): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const method = c.req.method;
    let token: ApiToken | null = null;
    if (options.tokens.length > 0 || !options.insecureLocal) {
      const presented = c.req.header('authorization');
      const found = authenticate(presented, options.tokens);
      if (!found)
        throw new ApiHttpError(
          401,
          'unauthorized',
          presented ? 'the bearer token is not valid' : 'send a bearer token: Authorization: Bearer <token>',
          { 'WWW-Authenticate': 'Bearer realm="xsb"' },
        );
      const scope = scopeFor(method);
      if (!found.scopes.has(scope))
        throw new ApiHttpError(403, 'forbidden', `the token "${found.name}" lacks the "${scope}" scope`);
      token = found;
    }
    const verdict = limiter.take(token?.name ?? 'anonymous');
    if (!verdict.allowed)
      throw new ApiHttpError(
        429,
        'rate_limited',
        `more than ${limiter.perMinute} requests per minute; retry in ${verdict.retryAfterSeconds} s`,
        { 'Retry-After': String(verdict.retryAfterSeconds) },
      );
    if (method === 'POST') refuseEarlyPost(c, options, bodyLimitBytes);
    c.set('token', token);
    await next();
  };
}

/** A POST is refused while the server drains, and when it declares more than the body limit. */
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

/**
 * The xsb HTTP API as a hono app (OpenAPI 3.1 at `/openapi.json`, a reference page at `/docs`): jobs,
 * evaluations, rubric evaluations and runs over one data folder and one job store. Routing, auth,
 * limits and the document live here; accepting, running and storing jobs is `@xsb/jobs`.
 */
export function createApiApp(options: ApiAppOptions): ApiApp {
  const bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const limiter = new RequestRateLimiter(options.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE);
  const app: ApiApp = new OpenAPIHono<ApiEnv>({
    defaultHook: (result, c) => {
      if (result.success) return;
      const issue = result.error.issues[0];
      const field = issue?.path.join('.') || 'request';
      return errorResponse(
        c as Context,
        new ApiHttpError(400, 'invalid_field', `field "${field}": ${issue?.message ?? 'is invalid'}`),
      );
    },
  });
  const log = options.log ?? (() => {});
  const accessLog = options.log;
  if (accessLog)
    app.use('*', async (c, next) => {
      const started = performance.now();
      await next();
      const token = c.get('token');
      accessLog(
        `${c.req.method} ${c.req.path} ${c.res.status} ${(performance.now() - started).toFixed(1)}ms${token ? ` token=${token.name}` : ''}`,
      );
    });
  app.onError((error, c) => {
    const apiError = toApiError(error);
    if (apiError.status === 500) log(`error on ${c.req.method} ${c.req.path}: ${apiError.message}`);
    return errorResponse(c, apiError);
  });
  app.notFound((c) =>
    errorResponse(c, new ApiHttpError(404, 'not_found', `no route ${c.req.method} ${c.req.path}`)),
  );

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'A token of XSB_API_TOKENS; `evaluate` scope to post and cancel, `read` to read.',
  });
  registerHealthRoutes(app, options);
  app.doc31('/openapi.json', API_DOCUMENT);
  app.get('/docs', (c) =>
    c.html(renderDocsPage(app.getOpenAPI31Document(API_DOCUMENT) as OpenApiDocumentView)),
  );

  app.use('/v1/*', v1Middleware(options, limiter, bodyLimitBytes));
  registerEvaluationRoutes(app, { ...options, bodyLimitBytes });
  registerJobRoutes(app, options);
  registerRunRoutes(app, options);
  return app;
}

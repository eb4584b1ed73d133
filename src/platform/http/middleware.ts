import Koa from 'koa';
import cors from '@koa/cors';
import helmet from 'koa-helmet';
import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { isApiPath } from './errors';
import { PublicReadLane, REQUEST_ID_RE } from './fast-lane';
import type { AppState, SessionUser } from './context';
import { buildRouter, nonCanonicalGuardedPath, type AccessControl, type MountedRoute, type RouteProbe, type Routes } from './routes';

/**
 * The module-agnostic pieces of the HTTP app. Which modules' routes are mounted, and in which
 * order, is decided by src/http.ts (beside src/services.ts): the platform knows no module.
 */

/**
 * A Koa app whose request handler (`callback()`, what node:http is given) first offers each
 * request to the public reads' fast lane (fast-lane.ts), then to Koa.
 */
export class CotaVerdeApp extends Koa<AppState> {
  constructor(
    readonly lane: PublicReadLane,
    options: { proxy: boolean; maxIpsCount: number },
  ) {
    super(options);
  }

  override callback(): ReturnType<Koa<AppState>['callback']> {
    const koa = super.callback();
    // HTTP/2 requests (not used here) always go to Koa.
    return (req, res) =>
      req instanceof IncomingMessage && res instanceof ServerResponse && this.lane.serve(req, res) ? Promise.resolve() : koa(req, res);
  }
}

/**
 * Request id + structured access log (first middleware). A public read Koa answered 200 from
 * the read cache is handed to the fast lane, which may answer the same URL next time.
 */
export function requestContext(app: CotaVerdeApp, logger: Logger): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID_RE.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ reqId: requestId });
    ctx.state.user = null;
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
      const answer = ctx.state.publicAnswer;
      if (answer && ctx.status === 200 && ctx.method === 'GET' && ctx.body === answer.bytes && !ctx.get('origin')) {
        app.lane.remember(ctx.originalUrl, answer, ctx.response.headers, (ctx as unknown as { _matchedRoute?: string })._matchedRoute);
      }
    } finally {
      if (isApiPath(ctx.path)) {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        ctx.state.log[ctx.status >= 500 ? 'error' : 'info'](
          {
            method: ctx.method,
            path: ctx.path,
            status: ctx.status,
            ms: Math.round(ms * 10) / 10,
            userId: (ctx.state as AppState).user?.id ?? undefined,
          },
          'request',
        );
      }
    }
  };
}

/**
 * Helmet's security headers, with the CSP the storefront needs; `provider` adds the origins of the
 * payment provider's browser SDK (each provider declares its own: PaymentProvider.browserOrigins).
 */
export function securityHeaders(
  config: Pick<Config, 'isProduction'>,
  provider: { script: string[]; connect: string[]; frame: string[] } = { script: [], connect: [], frame: [] },
): Koa.Middleware<AppState> {
  return helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        imgSrc: ["'self'", 'data:', 'https:'],
        styleSrc: ["'self'", "'unsafe-inline'"],
        scriptSrc: ["'self'", ...provider.script],
        connectSrc: ["'self'", ...provider.connect],
        frameSrc: ["'self'", ...provider.frame],
        upgradeInsecureRequests: config.isProduction ? [] : null,
      },
    },
    crossOriginEmbedderPolicy: false,
  }) as Koa.Middleware<AppState>;
}

/** CORS for the configured origins only, with credentials. */
export function corsPolicy(config: Pick<Config, 'corsOrigins'>): Koa.Middleware<AppState> {
  return cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      return config.corsOrigins.includes(origin) ? origin : '';
    },
    credentials: true,
    allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    allowHeaders: ['Content-Type', 'Authorization', 'X-Request-Id'],
  });
}

/**
 * Bearer token → `ctx.state.user` through the session cache (`authenticate`), and the token itself
 * in `ctx.state.bearerToken` for the routes whose access check reads the account afresh ('admin').
 */
export function bearerUser(authenticate: (token: string) => Promise<SessionUser | null>): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    const m = /^Bearer\s+(.+)$/i.exec(ctx.get('authorization'));
    if (m) {
      ctx.state.bearerToken = m[1].trim();
      ctx.state.user = await authenticate(ctx.state.bearerToken);
    }
    await next();
  };
}

/** The routes an app mounted, as it serves them (the generated access tests walk this). */
const MOUNTED = new WeakMap<Koa, MountedRoute[]>();

export function mountedRoutes(app: Koa<AppState>): MountedRoute[] {
  return [...(MOUNTED.get(app as Koa) ?? [])];
}

/**
 * Mounts declared routes in order (platform/http/routes.ts: each route's access check first in
 * its own chain); a method a router does not take is left to the error middleware (405).
 * `onlyPublic`: routes mounted before the session lookup, which may only be public.
 */
export function mountRoutes(
  app: Koa<AppState>,
  list: Routes[],
  control: AccessControl,
  o: { probe?: RouteProbe; onlyPublic?: boolean } = {},
) {
  const table = MOUNTED.get(app as Koa) ?? [];
  MOUNTED.set(app as Koa, table);
  for (const declared of list) {
    const { router, mounted } = buildRouter(declared, control, o);
    app.use(router.routes());
    app.use(router.allowedMethods({ throw: false }));
    table.push(...mounted);
  }
}

/**
 * The canonical-path rule (RULES H2): an /api or /ops path in any spelling but its one
 * canonical form answers 404 before anything else looks at it.
 */
export const canonicalPaths: Koa.Middleware<AppState> = async (ctx, next) => {
  if (nonCanonicalGuardedPath(ctx.path)) {
    ctx.status = 404;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { error: 'route_not_found', message: 'Rota não encontrada.' };
    return;
  }
  await next();
};

/**
 * No route took an /api path (any letter case): it stops here, before the SPA, and the error
 * middleware answers JSON 404 (or 405 when a router knows the path under another method).
 */
export const apiPathsStopHere: Koa.Middleware<AppState> = async (ctx, next) => {
  if (!isApiPath(ctx.path)) await next();
};

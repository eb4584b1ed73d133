import Koa from 'koa';
import Router from '@koa/router';
import cors from '@koa/cors';
import { bodyParser } from '@koa/bodyparser';
import helmet from 'koa-helmet';
import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import type { Services } from '../../services';
import { authRoutes } from '../../auth/routes';
import { catalogueReadRoutes, catalogueRoutes } from '../../catalogue/routes';
import { drawsReadRoutes, drawsRoutes } from '../../draws/routes';
import { paymentsRoutes } from '../../payments/routes';
import { couponsRoutes } from '../../coupons/routes';
import { accountRoutes } from '../../account/routes';
import { adminDrawsRoutes } from '../../draws/admin-routes';
import { errorMiddleware, isApiPath } from './errors';
import { spa } from './static';
import { PublicReadLane, REQUEST_ID_RE } from './fast-lane';
import type { AppState } from './context';

const READY_CHECK_MS = 1500;

/** `p`, or a rejection once `ms` have passed (the late outcome is ignored). */
function withinMs<T>(p: PromiseLike<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const work = Promise.resolve(p);
  work.catch(() => {});
  return Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)))]).finally(() =>
    clearTimeout(timer),
  );
}

/**
 * The Koa app whose request handler (`callback()`, what node:http is given) first offers each
 * request to the public reads' fast lane (http/fast-lane.ts), then to Koa.
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
    return (req, res) => (req instanceof IncomingMessage && res instanceof ServerResponse && this.lane.serve(req, res) ? Promise.resolve() : koa(req, res));
  }
}

/** Builds the Koa app: platform middleware, every module's routes, then the SPA. */
export function createApp(services: Services, opts: { serveWeb?: boolean; webDir?: string } = {}) {
  const { config, logger } = services;
  // Client IP = the X-Forwarded-For entry appended by the last trusted hop; entries further left
  // are the client's own text (a forged one must not buy fresh rate limits).
  const app = new CotaVerdeApp(new PublicReadLane(services.readCache, logger), { proxy: config.trustProxy, maxIpsCount: config.trustedProxyHops });

  // Request id + structured access log.
  app.use(async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID_RE.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ reqId: requestId });
    ctx.state.user = null;
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
      // A public read answered 200 from the read cache: the fast lane may answer the same URL.
      const answer = ctx.state.publicAnswer;
      if (answer && ctx.status === 200 && ctx.method === 'GET' && ctx.body === answer.bytes && !ctx.get('origin')) {
        app.lane.remember(ctx.originalUrl, answer, ctx.response.headers);
      }
    } finally {
      if (isApiPath(ctx.path)) {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        ctx.state.log[ctx.status >= 500 ? 'error' : 'info'](
          { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10, userId: (ctx.state as AppState).user?.id ?? undefined },
          'request',
        );
      }
    }
  });
  app.use(errorMiddleware);
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          imgSrc: ["'self'", 'data:', 'https:'],
          styleSrc: ["'self'", "'unsafe-inline'"],
          scriptSrc: ["'self'", 'https://sdk.mercadopago.com'],
          connectSrc: ["'self'", 'https://api.mercadopago.com'],
          frameSrc: ["'self'", 'https://*.mercadopago.com'],
          upgradeInsecureRequests: config.isProduction ? [] : null,
        },
      },
      crossOriginEmbedderPolicy: false,
    }),
  );
  app.use(
    cors({
      origin: (ctx) => {
        const origin = ctx.get('Origin');
        return config.corsOrigins.includes(origin) ? origin : '';
      },
      credentials: true,
      allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      allowHeaders: ['Content-Type', 'Authorization', 'X-Request-Id'],
    }),
  );
  // Public reads (the same answer for every caller, from the read cache): before the body
  // parser and the bearer lookup, so a cache hit costs no query even for a signed-in caller.
  for (const router of [catalogueReadRoutes(services.catalogue), drawsReadRoutes(services.draws)]) {
    app.use(router.routes());
    app.use(router.allowedMethods({ throw: false }));
  }

  app.use(bodyParser({ jsonLimit: config.bodyLimit, enableTypes: ['json'], encoding: 'utf-8' }));

  // Bearer token → ctx.state.user, read fresh from the database each request.
  app.use(async (ctx, next) => {
    const header = ctx.get('authorization');
    const m = /^Bearer\s+(.+)$/i.exec(header);
    if (m) ctx.state.user = await services.auth.authenticate(m[1].trim());
    await next();
  });

  const platform = new Router<AppState>({ prefix: '/api' });
  platform.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  // Liveness (/health) never looks at dependencies; readiness answers within ~1.5 s whatever
  // is down, and names it: { status, database, redis, down: [...] }.
  platform.get('/ready', async (ctx) => {
    const [dbOk, redisOk] = await Promise.all([
      withinMs(services.db.raw('select 1'), READY_CHECK_MS).then(() => true, () => false),
      withinMs(services.fastRedis.ping(), READY_CHECK_MS).then((r) => r === 'PONG', () => false),
    ]);
    const down = [...(dbOk ? [] : ['database']), ...(redisOk ? [] : ['redis'])];
    ctx.status = down.length ? 503 : 200;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = down.length ? { status: 'unavailable', database: dbOk, redis: redisOk, down } : { status: 'ready', database: true, redis: true };
  });

  for (const router of [platform, authRoutes(services.auth), catalogueRoutes(services.catalogue), drawsRoutes(services), paymentsRoutes(services.payments, services.participations), couponsRoutes(services.coupons), accountRoutes(services), adminDrawsRoutes(services)]) {
    app.use(router.routes());
    app.use(router.allowedMethods({ throw: false }));
  }
  // No route took an /api path (any letter case): it stops here, before the SPA, and the error
  // middleware answers JSON 404 (or 405 when a router knows the path under another method).
  app.use(async (ctx, next) => {
    if (!isApiPath(ctx.path)) await next();
  });

  if (opts.serveWeb !== false) app.use(spa(opts.webDir ?? path.resolve(config.webDistDir), path.resolve(__dirname, '../../../public')));
  return app;
}

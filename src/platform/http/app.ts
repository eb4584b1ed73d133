import Koa from 'koa';
import Router from '@koa/router';
import cors from '@koa/cors';
import { bodyParser } from '@koa/bodyparser';
import helmet from 'koa-helmet';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Services } from '../../services';
import { authRoutes } from '../../auth/routes';
import { catalogueReadRoutes, catalogueRoutes } from '../../catalogue/routes';
import { drawsReadRoutes, drawsRoutes } from '../../draws/routes';
import { paymentsRoutes } from '../../payments/routes';
import { errorMiddleware } from './errors';
import { spa } from './static';
import type { AppState } from './context';

const REQUEST_ID_RE = /^[A-Za-z0-9._-]{8,64}$/;

/** Builds the Koa app: platform middleware, every module's routes, then the SPA. */
export function createApp(services: Services, opts: { serveWeb?: boolean; webDir?: string } = {}) {
  const { config, logger } = services;
  const app = new Koa<AppState>({ proxy: config.trustProxy });

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
    } finally {
      if (ctx.path.startsWith('/api')) {
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
  platform.get('/ready', async (ctx) => {
    const [dbOk, redisOk] = await Promise.all([
      services.db.raw('select 1').then(() => true, () => false),
      services.redis.ping().then((r) => r === 'PONG', () => false),
    ]);
    ctx.status = dbOk && redisOk ? 200 : 503;
    ctx.body = { status: dbOk && redisOk ? 'ready' : 'unavailable', database: dbOk, redis: redisOk };
  });

  for (const router of [platform, authRoutes(services.auth), catalogueRoutes(services.catalogue), drawsRoutes(services), paymentsRoutes(services.payments)]) {
    app.use(router.routes());
    app.use(router.allowedMethods({ throw: false }));
  }

  if (opts.serveWeb !== false) app.use(spa(opts.webDir ?? path.resolve(config.webDistDir), path.resolve(__dirname, '../../../public')));
  return app;
}

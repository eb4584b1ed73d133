import { bodyParser } from '@koa/bodyparser';
import path from 'node:path';
import type { Services } from './services';
import { authRoutes } from './auth/routes';
import { catalogueReadRoutes, catalogueRoutes } from './catalogue/routes';
import { drawsReadRoutes, drawsRoutes } from './draws/routes';
import { drawsLiveRoutes } from './live/routes';
import { paymentsRoutes } from './payments/routes';
import { couponsRoutes } from './coupons/routes';
import { accountRoutes } from './account/routes';
import { prizeRoutes } from './results/prize-routes';
import { adminDrawsRoutes } from './draws/admin-routes';
import { adminUsersRoutes } from './auth/admin-users-routes';
import { adminHistoryRoutes } from './draws/admin-history-routes';
import { adminWinnersRoutes } from './results/winners-routes';
import { adminAuditRoutes } from './audit/admin-routes';
import { adminInfoproductsRoutes, coverRoutes } from './catalogue/admin-routes';
import { adminPaymentsRoutes } from './payments/admin-routes';
import { adminResultsRoutes } from './results/admin-routes';
import { drawResultRoutes } from './results/routes';
import { adminAutopayRoutes, autopayRoutes } from './autopay/routes';
import { errorMiddleware } from './platform/http/errors';
import { PublicReadLane } from './platform/http/fast-lane';
import { healthRoutes } from './platform/http/health';
import {
  apiPathsStopHere,
  bearerUser,
  canonicalPaths,
  corsPolicy,
  CotaVerdeApp,
  mountRoutes,
  requestContext,
  securityHeaders,
} from './platform/http/middleware';
import { accessControl } from './platform/http/context';
import { adminAccessRefusal } from './auth/access';
import type { RouteProbe } from './platform/http/routes';
import { spa } from './platform/http/static';
import { ssrPages } from './ssr/handler';
import { PROJECT_ROOT } from './platform/paths';
import { opsAccess, opsAnswers, opsRoutes } from './ops/dashboard';
import { opsAdminRoutes } from './ops/admin-routes';
import { httpMetrics, metricsRoute } from './platform/metrics';
import { registerAppMetrics } from './ops/metrics';

/**
 * The Koa app of the web process, beside services.ts (the composition root): platform
 * middleware (src/platform/http, which knows no module), every module's routes, then the SPA.
 */
export function createApp(services: Services, opts: { serveWeb?: boolean; webDir?: string; routeProbe?: RouteProbe } = {}) {
  const { config, logger } = services;
  // Every web process applies the other processes' read-cache invalidations (platform/cache-bus.ts).
  void services.cacheBus.subscribe();
  // Cached sessions are served only while that subscription is live (session changes arrive).
  services.sessions.trustWhile(() => services.cacheBus.subscribed);
  // Client IP = the X-Forwarded-For entry appended by the last trusted hop; entries further left
  // are the client's own text (a forged one must not buy fresh rate limits).
  const app = new CotaVerdeApp(new PublicReadLane(services.readCache, logger), {
    proxy: config.trustProxy,
    maxIpsCount: config.trustedProxyHops,
  });

  registerAppMetrics(services, 'web');
  // Errors Koa reports outside the middleware chain (a socket failing under a written answer).
  // A client that goes away mid-stream (a closed tab under a live board) is not an error.
  app.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || err.code === 'ECONNABORTED' || err.code === 'ERR_STREAM_PREMATURE_CLOSE')
      return;
    logger.error({ err: err.message, code: err.code }, 'koa error outside the middleware chain');
  });
  // Who may call each route is declared beside it (platform/http/routes.ts) and checked in that
  // route's own chain, with these checks.
  const access = accessControl({
    authenticateFresh: (token) => services.auth.authenticate(token, { fresh: true }),
    // The deployment's admin rule (two factors where required), the same one /ops applies.
    adminRefusal: (user) => adminAccessRefusal(user, config),
    ops: opsAccess({ ops: services.ops, auth: services.auth }),
  });
  const mountOpts = { probe: opts.routeProbe };

  app.use(requestContext(app, logger));
  app.use(httpMetrics());
  app.use(errorMiddleware);
  // One spelling of every /api and /ops path (RULES H2): any other answers 404 before any router,
  // guard or prefix test sees it.
  app.use(canonicalPaths);
  app.use(securityHeaders(config, services.payments.browserOrigins()));
  // GET /metrics (Prometheus): open in development, bearer METRICS_TOKEN in production, else 404.
  app.use(metricsRoute(config));
  app.use(corsPolicy(config));
  // Everything under /ops (the admins' queue dashboard, its own cookie): answered there, never
  // by the SPA or the /api 404 (ops/dashboard.ts).
  app.use(opsAnswers);
  mountRoutes(app, [opsRoutes({ ops: services.ops, queue: services.queue, config })], access, mountOpts);
  // Public reads (the same answer for every caller, from the read cache): before the body
  // parser and the bearer lookup, so a cache hit costs no query even for a signed-in caller.
  // The live routes first: /api/draws/events is not a draw id.
  mountRoutes(app, [catalogueReadRoutes(services.catalogue), drawsLiveRoutes(services), drawsReadRoutes(services.draws)], access, {
    ...mountOpts,
    onlyPublic: true,
  });

  app.use(bodyParser({ jsonLimit: config.bodyLimit, enableTypes: ['json'], encoding: 'utf-8' }));
  // The caller through the session cache; the 'admin' access check reads the account afresh
  // from the database (RULES U1), whatever the path.
  app.use(bearerUser((token) => services.auth.authenticate(token)));
  // A signed-in user's write (any method but GET/HEAD/OPTIONS), once answered by the routes:
  // their cached sessions and reads go on every web process before the answer leaves, so their
  // next read shows it (platform/user-read-cache.ts).
  app.use(async (ctx, next) => {
    try {
      await next();
    } finally {
      const user = ctx.state.user;
      if (user && ctx.method !== 'GET' && ctx.method !== 'HEAD' && ctx.method !== 'OPTIONS') await services.sessions.userChanged(user.id);
    }
  });

  mountRoutes(app, moduleRouters(services), access, mountOpts);
  app.use(apiPathsStopHere);

  if (opts.serveWeb !== false) {
    const webDir = opts.webDir ?? path.resolve(config.webDistDir);
    // The public pages rendered here (src/ssr) unless WEB_SSR=off; the rest is the client-rendered app.
    if (config.webSsr) app.use(ssrPages({ webDir, sources: services, logger }));
    app.use(spa(webDir, path.join(PROJECT_ROOT, 'public')));
  }
  return app;
}

/**
 * Every module's routes that run after the bearer lookup, in mounting order. The generated
 * access tests (tests/platform/route-access.test.ts) walk what the app mounted, so a new route
 * is covered the moment it is added here.
 */
export function moduleRouters(services: Services) {
  return [
    healthRoutes({
      db: services.db,
      redis: services.fastRedis,
      queuePrefix: services.config.queuePrefix,
      instance: services.config.instance,
    }),
    authRoutes(services.auth, services.config, services.userReads),
    catalogueRoutes(services.catalogue),
    drawsRoutes(services),
    paymentsRoutes(services.payments, services.participations, services.userReads),
    couponsRoutes(services.coupons),
    accountRoutes(services),
    // Before adminDrawsRoutes: its GET /api/admin/draws/:id would take /api/admin/draws/history.
    adminHistoryRoutes(services),
    adminWinnersRoutes(services),
    // The winner's prizes and the store's prize contact (issue 26).
    ...prizeRoutes(services),
    adminDrawsRoutes(services),
    adminUsersRoutes(services),
    adminAuditRoutes(services),
    adminInfoproductsRoutes(services),
    coverRoutes(services),
    adminPaymentsRoutes(services),
    drawResultRoutes(services),
    adminResultsRoutes(services),
    opsAdminRoutes(services),
    autopayRoutes(services),
    adminAutopayRoutes(services),
  ];
}

/* eslint-disable @typescript-eslint/no-require-imports */
import './platform/validation'; // zod's Portuguese messages, before any schema is used
import { loadConfig } from './platform/config';
import type { Redis } from './platform/redis';
import type { Invalidation } from './platform/read-cache';
import type { SessionCache, SessionChange } from './platform/session-cache';
import type { SessionUser } from './platform/http/context';
import type { PaymentProvider } from './payments/providers/types';
import type { ServiceOverrides, Services } from './services-types';
import { defineLazy, redirectListener } from './platform/lazy';

export type { ServiceOverrides, Services } from './services-types';

type Makers = { [K in Exclude<keyof Services, 'close'>]: () => Services[K] };

/**
 * The one composition root: the Koa app, the worker and every CLI command call createServices.
 * Plain factories, no container: each module's service gets what it needs.
 *
 * Lazy: each service is built the first time it is read (a getter), together with what it needs,
 * and its module is loaded then too (`require` inside its maker, type-only imports above): the
 * built CLI (cli/build.cjs) keeps every module's code unevaluated until a command touches it, so
 * `cotaverde --help` loads none and `draws list` loads the database and the draws modules, not
 * BullMQ, the mailer or the payment providers. Web processes build what createApp and their
 * requests touch; the worker what its handlers touch. close() ends only what was built.
 */
export function createServices(overrides: ServiceOverrides = {}): Services {
  const config = overrides.config ?? loadConfig();
  const s = {} as Services;
  /**
   * The read-cache bus's listeners, once the bus exists. The bus is built on this process's first
   * invalidation or session change (or when a web process subscribes, createApp), so a process
   * that changes nothing opens no Redis connection for it; see readCache, sessions and cacheBus.
   */
  let busListener: ((m: Invalidation) => void) | undefined;
  let busSessionListener: ((c: SessionChange) => Promise<void> | void) | undefined;

  /** The payment provider and the sandbox: chosen here, once, for payments, autopay and the review. */
  let providers:
    { provider: PaymentProvider; sandbox: ReturnType<typeof import('./payments/providers').createProvider>['sandbox'] } | undefined;
  const paymentProviders = () => {
    if (!providers) {
      const chosen = (require('./payments/providers') as typeof import('./payments/providers')).createProvider(config, { db: s.db });
      providers = { provider: overrides.paymentProvider ?? chosen.provider, sandbox: chosen.sandbox };
    }
    return providers;
  };

  // A reservation that ended (expired, or confirmed with vouchers) leaves its PIX unpayable:
  // payments cancels it, here and at the provider. Wired here so draws never imports payments.
  const onReservationEnded = (reservationId: number, reason: string) =>
    (require('./payments/queries') as typeof import('./payments/queries')).cancelPendingPaymentsOfReservation(s.db, reservationId, reason);
  // RULES W8: a refund that voids a drawn draw's winning sale re-decides it in the refund's
  // transaction; results (called only then) owns the decision. Wired here so vouchers never builds results.
  const onDrawnSalesVoided: Parameters<typeof import('./draws/vouchers').createVouchersService>[0]['onDrawnSalesVoided'] = (trx, e) =>
    s.results.redecideAfterRefund(trx, e);
  /** The live boards' own connection, once built (see live). */
  let liveRedis: Redis | undefined;

  const makers: Makers = {
    config: () => config,
    logger: () => {
      const given = overrides.logger;
      if (typeof given === 'function') return given();
      return given ?? (require('./platform/logger') as typeof import('./platform/logger')).createLogger({ level: config.logLevel });
    },
    db: () => overrides.db ?? (require('./platform/db') as typeof import('./platform/db')).createDb(config.databaseUrl, config.dbPoolMax),
    redis: () => {
      const redis = (require('./platform/redis') as typeof import('./platform/redis')).createRedis(config.redisUrl);
      redis.on('error', (err) => s.logger.warn({ err: err.message }, 'redis connection error'));
      return redis;
    },
    fastRedis: () => {
      const fastRedis = (require('./platform/redis') as typeof import('./platform/redis')).createRedis(
        config.redisUrl,
        'cotaverde-app',
        'fail-fast',
      );
      // One line per outage, not one per reconnection attempt.
      let redisDown = false;
      fastRedis.on('error', (err) => {
        if (!redisDown) s.logger.warn({ err: err.message }, 'redis unreachable: jobs are left to the sweeps, rate limits are per process');
        redisDown = true;
      });
      fastRedis.on('ready', () => {
        if (redisDown) s.logger.info('redis reachable again');
        redisDown = false;
      });
      return fastRedis;
    },
    queue: () => (require('./platform/queue') as typeof import('./platform/queue')).createJobQueue(s.fastRedis, config.queuePrefix),
    rateLimits: () =>
      (require('./platform/rate-limit') as typeof import('./platform/rate-limit')).createRateLimits(
        s.fastRedis,
        config.queuePrefix,
        config.rateLimitDisabled,
      ),
    mailer: () => {
      const mailer = (require('./platform/mail') as typeof import('./platform/mail')).createMailer({
        db: s.db,
        queue: s.queue,
        logger: s.logger,
        smtpUrl: config.smtpUrl,
        dropDir: config.mailDropDir,
        from: config.mailFrom,
        replyTo: config.supportEmail,
      });
      // Auth registers the renderers of its mails (password reset, admin e-mail confirmation) on
      // the mailer when built: a delivery builds it first, so every process renders them.
      const deliver = mailer.deliver.bind(mailer);
      return Object.assign(mailer, { deliver: (outboxId: number) => (void s.auth, deliver(outboxId)) });
    },
    readCache: () => {
      const cache = overrides.readCache ?? new (require('./platform/read-cache') as typeof import('./platform/read-cache')).ReadCache();
      // This process's invalidations reach the other processes through the bus, built on the first one.
      cache.onInvalidate((m) => {
        void s.cacheBus;
        busListener?.(m);
      });
      return cache;
    },
    cacheBus: () =>
      (require('./platform/cache-bus') as typeof import('./platform/cache-bus')).createCacheBus({
        // The bus's listeners are kept in busListener and busSessionListener, called by the
        // caches' own listeners (readCache and sessions), also for the change that built the bus.
        cache: redirectListener(s.readCache, 'onInvalidate', (l: typeof busListener) => void (busListener = l)),
        sessions: redirectListener(
          s.sessions as SessionCache<unknown>,
          'onChange',
          (l: typeof busSessionListener) => void (busSessionListener = l),
        ),
        publisher: s.fastRedis,
        redisUrl: config.redisUrl,
        channel: `${config.queuePrefix}:read-cache`,
        logger: s.logger,
      }),
    sessions: () => {
      const sessions = new (require('./platform/session-cache') as typeof import('./platform/session-cache')).SessionCache<SessionUser>();
      sessions.alsoDrop((userId) => s.userReads.dropUser(userId));
      // A session change (sign-out, demotion, removal, from any process) reaches every web process
      // through the bus before the writer goes on: the bus is built on the first change.
      sessions.onChange(async (c) => {
        void s.cacheBus;
        await busSessionListener?.(c);
      });
      return sessions;
    },
    userReads: () => new (require('./platform/user-read-cache') as typeof import('./platform/user-read-cache')).UserReadCache(),
    auth: () =>
      (require('./auth/service') as typeof import('./auth/service')).createAuthService({
        db: s.db,
        config,
        rateLimits: s.rateLimits,
        mailer: s.mailer,
        logger: s.logger,
        sessions: s.sessions,
        now: overrides.now ?? Date.now,
      }),
    // Draw-opened hooks run in the opening transaction: autopay holds the captive numbers of the
    // main series' new draw (RULES A2), only when opened by sell-out succession or by an admin,
    // never by a customer's ensure-open-draw (RULES A3). Wired here so draws never imports autopay.
    draws: () =>
      (require('./draws/service') as typeof import('./draws/service')).createDrawsService({
        db: s.db,
        logger: s.logger,
        readCache: s.readCache,
        onDrawOpened: [
          (trx, draw, by) => (require('./autopay/holds') as typeof import('./autopay/holds')).holdCaptiveNumbers(trx, draw, by),
        ],
      }),
    reservations: () =>
      (require('./draws/reservations') as typeof import('./draws/reservations')).createReservationsService({
        db: s.db,
        queue: s.queue,
        logger: s.logger,
        rateLimits: s.rateLimits,
        draws: s.draws,
        onReservationEnded,
      }),
    vouchers: () =>
      (require('./draws/vouchers') as typeof import('./draws/vouchers')).createVouchersService({
        db: s.db,
        logger: s.logger,
        draws: s.draws,
        onReservationEnded,
        onDrawnSalesVoided,
      }),
    auditLog: () => (require('./audit/service') as typeof import('./audit/service')).createAuditLogService({ db: s.db }),
    adminDraws: () =>
      (require('./draws/admin') as typeof import('./draws/admin')).createAdminDrawsService({
        db: s.db,
        draws: s.draws,
        readCache: s.readCache,
        logger: s.logger,
      }),
    adminHistory: () =>
      (require('./draws/admin-history') as typeof import('./draws/admin-history')).createAdminHistoryService({ db: s.db }),
    openBuyers: () =>
      (require('./draws/open-buyers') as typeof import('./draws/open-buyers')).createOpenBuyersService({ db: s.db, draws: s.draws }),
    winners: () =>
      (require('./results/winners') as typeof import('./results/winners')).createWinnersService({
        db: s.db,
        draws: s.draws,
        readCache: s.readCache,
        logger: s.logger,
      }),
    catalogue: () =>
      (require('./catalogue/service') as typeof import('./catalogue/service')).createCatalogueService({
        db: s.db,
        draws: s.draws,
        readCache: s.readCache,
      }),
    payments: () => {
      const { provider, sandbox } = paymentProviders();
      return (require('./payments/service') as typeof import('./payments/service')).createPaymentsService({
        db: s.db,
        config,
        logger: s.logger,
        queue: s.queue,
        rateLimits: s.rateLimits,
        vouchers: s.vouchers,
        draws: s.draws,
        reservations: s.reservations,
        provider,
        sandbox,
        receipts: (require('./payments/receipt') as typeof import('./payments/receipt')).createReceipts({
          mailer: s.mailer,
          publicUrl: config.publicUrl,
          onDispatchError: (outboxId, err) =>
            s.logger.warn({ outboxId, err: err.message }, 'receipt mail: dispatch failed; the sweep sends it'),
        }),
        userData: s.sessions,
      });
    },
    coupons: () => {
      const adapters = require('./coupons/adapters') as typeof import('./coupons/adapters');
      const adapter =
        overrides.couponAdapter ??
        (config.coupons.adapter === 'webhook'
          ? adapters.createWebhookAdapter({
              url: config.coupons.webhookUrl as string,
              secret: config.coupons.webhookSecret as string,
              logger: s.logger,
            })
          : adapters.noneAdapter);
      return (require('./coupons/service') as typeof import('./coupons/service')).createCouponsService({
        db: s.db,
        logger: s.logger,
        queue: s.queue,
        adapter,
      });
    },
    participations: () =>
      (require('./payments/participations') as typeof import('./payments/participations')).createParticipationsService({ db: s.db }),
    myBoard: () => (require('./draws/my-board') as typeof import('./draws/my-board')).createMyBoardService({ db: s.db }),
    ebooks: () =>
      (require('./catalogue/ebooks') as typeof import('./catalogue/ebooks')).createEbooksService({
        db: s.db,
        appSecret: config.appSecret,
        storageDir: config.ebookStorageDir,
        adminEmails: config.adminEmails,
        logger: s.logger,
      }),
    account: () =>
      (require('./account/service') as typeof import('./account/service')).createAccountService({
        db: s.db,
        catalogue: s.catalogue,
        coupons: s.coupons,
        readCache: s.readCache,
      }),
    adminInfoproducts: () =>
      (require('./catalogue/admin') as typeof import('./catalogue/admin')).createAdminInfoproductsService({
        db: s.db,
        readCache: s.readCache,
        logger: s.logger,
        ebookStorageDir: config.ebookStorageDir,
        coverStorageDir: config.uploads.coverStorageDir,
        ebookMaxBytes: config.uploads.ebookMaxBytes,
        coverMaxBytes: config.uploads.coverMaxBytes,
        draws: s.draws,
      }),
    paymentsReview: () => {
      const { provider, sandbox } = paymentProviders();
      return (require('./payments/review') as typeof import('./payments/review')).createPaymentsReviewService({
        db: s.db,
        payments: s.payments,
        sandboxActive: !!sandbox && provider.name === 'sandbox',
      });
    },
    lottery: () =>
      overrides.lotteryClient ??
      (require('./results/lottery-client') as typeof import('./results/lottery-client')).createLotteryClient({
        ...config.lottery,
        logger: s.logger,
      }),
    results: () =>
      (require('./results/service') as typeof import('./results/service')).createResultsService({
        db: s.db,
        logger: s.logger,
        mailer: s.mailer,
        readCache: s.readCache,
        draws: s.draws,
        lottery: s.lottery,
        publicUrl: config.publicUrl,
      }),
    ops: () =>
      (require('./ops/service') as typeof import('./ops/service')).createOpsService({
        db: s.db,
        config,
        queue: s.queue,
        redis: s.fastRedis,
        prefix: config.queuePrefix,
        logger: s.logger,
      }),
    autopay: () => {
      const { provider, sandbox } = paymentProviders();
      return (require('./autopay/service') as typeof import('./autopay/service')).createAutopayService({
        db: s.db,
        config,
        logger: s.logger,
        queue: s.queue,
        draws: s.draws,
        payments: s.payments,
        provider,
        sandbox: provider === sandbox ? sandbox : null,
      });
    },
    live: () => {
      // The live boards' own connection (connected on first use, so only web processes with
      // streams open it): a slow Redis is waited for, not taken for a down one.
      liveRedis = (require('./platform/redis') as typeof import('./platform/redis')).createRedis(
        config.redisUrl,
        'cotaverde-live',
        'fail-fast',
        {
          commandTimeoutMs: config.live.redisTimeoutMs,
          lazy: true,
        },
      );
      return (require('./live/live') as typeof import('./live/live')).createLiveBoards({
        db: s.db,
        redis: liveRedis,
        readCache: s.readCache,
        prefix: config.queuePrefix,
        logger: s.logger,
        maxStreams: config.live.maxStreams,
        maxStreamsPerClient: config.live.maxStreamsPerClient,
        heartbeatMs: config.live.heartbeatMs,
        streamMaxLen: config.live.streamMaxLen,
      });
    },
    figures: () => (require('./ops/figures') as typeof import('./ops/figures')).createFiguresService({ db: s.db }),
    books: () => (require('./audit/books') as typeof import('./audit/books')).createBooksService({ db: s.db, logger: s.logger }),
    backups: () =>
      (require('./ops/backups') as typeof import('./ops/backups')).createBackupsService({
        db: s.db,
        config,
        logger: s.logger,
        books: s.books,
      }),
    adminUsers: () =>
      (require('./auth/admin-users') as typeof import('./auth/admin-users')).createAdminUsersService({
        db: s.db,
        logger: s.logger,
        mailer: s.mailer,
        adminEmails: config.adminEmails,
        draws: s.draws,
        reservations: s.reservations,
        coupons: s.coupons,
        readCache: s.readCache,
        assignments: (require('./draws/assign') as typeof import('./draws/assign')).createNumberAssignmentsService({
          db: s.db,
          draws: s.draws,
          reservations: s.reservations,
          recordAdminPayment: (require('./payments/records') as typeof import('./payments/records')).recordAdminAssignment,
        }),
        sessions: s.sessions,
        forgetUser: [
          (trx, u) => s.autopay.forgetUser(trx, u),
          (trx, u) => s.mailer.forgetUser(trx, u),
          (trx, u) => s.auth.forgetUser(trx, u),
        ],
      }),
  };
  const built = defineLazy(s, makers);

  s.close = async () => {
    // Only what was built: closing builds nothing.
    if (built.has('live')) s.live.closeAll();
    if (built.has('cacheBus')) await s.cacheBus.close().catch(() => {});
    if (built.has('queue')) await s.queue.close().catch(() => {});
    if (built.has('db') || overrides.db) await (overrides.db ?? s.db).destroy().catch(() => {});
    if (built.has('redis')) s.redis.disconnect();
    if (built.has('fastRedis')) s.fastRedis.disconnect();
    liveRedis?.disconnect();
  };
  return s;
}

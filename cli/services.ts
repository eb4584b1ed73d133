/* eslint-disable @typescript-eslint/no-require-imports */
import type { Config } from '../src/platform/config';
import type { Services } from '../src/services';
import type { PaymentProvider } from '../src/payments/providers/types';

/**
 * The CLI's composition root: the same wiring as `createServices` (src/services.ts), made lazy.
 * Each service is built, and its module loaded (`require` inside the getter: the built CLI keeps
 * every module's code unevaluated until then), the first time a command touches it. So `draws list`
 * loads the database and the draws modules, not BullMQ, the mailer or the payment providers, and
 * `--help` loads none. Keep the wiring in step with createServices: the `makers` type makes a
 * service missing or extra here a compile error, the factories' types check required arguments, and
 * tests/cli/services.test.ts compares the services at run time and, in the sources, the
 * dependencies each factory gets here and in createServices (optional ones included).
 */
/** `overrides.logger`: how to make the logger (the CLI's logs go to stderr: stdout is the command's answer). */
export function createCliServices(config: Config, overrides: { logger?: () => Services['logger'] } = {}): Services {
  const s = {} as Services;
  const built = new Set<keyof Services>();
  const define = <K extends keyof Services>(key: K, make: () => Services[K]) => {
    let value: Services[K];
    Object.defineProperty(s, key, {
      enumerable: true,
      configurable: true,
      get() {
        if (!built.has(key)) {
          value = make();
          built.add(key);
        }
        return value;
      },
    });
  };

  const platform = {
    db: () => require('../src/platform/db') as typeof import('../src/platform/db'),
    redis: () => require('../src/platform/redis') as typeof import('../src/platform/redis'),
  };

  /** The read-cache bus's invalidation listener, once the bus exists (see readCache and cacheBus below). */
  let busListener: ((m: import('../src/platform/read-cache').Invalidation) => void) | undefined;
  /** The bus's session-change listener, once the bus exists (see sessions and cacheBus below). */
  let busSessionListener: ((c: import('../src/platform/session-cache').SessionChange) => Promise<void> | void) | undefined;

  // The payment provider and the sandbox, as createServices chooses them.
  let providers: { provider: PaymentProvider; sandbox: ReturnType<typeof import('../src/payments/providers/sandbox').createSandboxProvider> | null } | null = null;
  const paymentProviders = () =>
    (providers ??= (require('../src/payments/providers') as typeof import('../src/payments/providers')).createProvider(config, { db: s.db }));
  // As createServices: a reservation that ended leaves its PIX unpayable; payments cancels it.
  const onReservationEnded = (reservationId: number, reason: string) =>
    (require('../src/payments/queries') as typeof import('../src/payments/queries')).cancelPendingPaymentsOfReservation(s.db, reservationId, reason);
  // As createServices: a refund that voids a drawn draw's winning sale re-decides it (RULES W8).
  const onDrawnSalesVoided: Parameters<typeof import('../src/draws/vouchers').createVouchersService>[0]['onDrawnSalesVoided'] = (trx, e) => s.results.redecideAfterRefund(trx, e);
  const makers: { [K in Exclude<keyof Services, 'close'>]: () => Services[K] } = {
    config: () => config,
    logger: () => overrides.logger?.() ?? (require('../src/platform/logger') as typeof import('../src/platform/logger')).createLogger({ level: config.logLevel }),
    db: () => platform.db().createDb(config.databaseUrl, config.dbPoolMax),
    redis: () => {
      const redis = platform.redis().createRedis(config.redisUrl);
      redis.on('error', (err) => s.logger.warn({ err: err.message }, 'redis connection error'));
      return redis;
    },
    fastRedis: () => {
      const fastRedis = platform.redis().createRedis(config.redisUrl, 'cotaverde-app', 'fail-fast');
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
    queue: () => (require('../src/platform/queue') as typeof import('../src/platform/queue')).createJobQueue(s.fastRedis, config.queuePrefix),
    rateLimits: () =>
      (require('../src/platform/rate-limit') as typeof import('../src/platform/rate-limit')).createRateLimits(s.fastRedis, config.queuePrefix, config.rateLimitDisabled),
    mailer: () =>
      (require('../src/platform/mail') as typeof import('../src/platform/mail')).createMailer({
        db: s.db,
        queue: s.queue,
        logger: s.logger,
        smtpUrl: config.smtpUrl,
        dropDir: config.mailDropDir,
        from: config.mailFrom,
        replyTo: config.supportEmail,
      }),
    readCache: () => {
      const { ReadCache } = require('../src/platform/read-cache') as typeof import('../src/platform/read-cache');
      const cache = new ReadCache();
      // As in createServices, this process's invalidations reach the web processes through the bus;
      // the bus (and its Redis connection) is built on the first invalidation, then handed each one.
      cache.onInvalidate((m) => {
        void s.cacheBus;
        busListener?.(m);
      });
      return cache;
    },
    cacheBus: () =>
      (require('../src/platform/cache-bus') as typeof import('../src/platform/cache-bus')).createCacheBus({
        // The bus registers its listener on the cache it is given: here it is kept in busListener
        // and called by the cache's own listener above (also for the invalidation that built it).
        cache: new Proxy(s.readCache, {
          get(target, prop) {
            if (prop === 'onInvalidate') return (l: typeof busListener) => void (busListener = l);
            const v = Reflect.get(target, prop, target);
            return typeof v === 'function' ? v.bind(target) : v;
          },
        }),
        // Likewise the session cache: its changes are published by the bus, awaited by the writer.
        sessions: new Proxy(s.sessions as import('../src/platform/session-cache').SessionCache<unknown>, {
          get(target, prop) {
            if (prop === 'onChange') return (l: typeof busSessionListener) => void (busSessionListener = l);
            const v = Reflect.get(target, prop, target);
            return typeof v === 'function' ? v.bind(target) : v;
          },
        }),
        publisher: s.fastRedis,
        redisUrl: config.redisUrl,
        channel: `${config.queuePrefix}:read-cache`,
        logger: s.logger,
      }),
    sessions: () => {
      const { SessionCache } = require('../src/platform/session-cache') as typeof import('../src/platform/session-cache');
      const sessions = new SessionCache<import('../src/platform/http/context').SessionUser>();
      sessions.alsoDrop((userId) => s.userReads.dropUser(userId));
      // A session change made here (CLI admin, demotion, removal) reaches every web process before
      // the command ends: the bus is built on the first change and its publish awaited.
      sessions.onChange(async (c) => {
        void s.cacheBus;
        await busSessionListener?.(c);
      });
      return sessions;
    },
    userReads: () => new (require('../src/platform/user-read-cache') as typeof import('../src/platform/user-read-cache')).UserReadCache(),
    auth: () =>
      (require('../src/auth/service') as typeof import('../src/auth/service')).createAuthService({
        db: s.db,
        config,
        rateLimits: s.rateLimits,
        mailer: s.mailer,
        logger: s.logger,
        sessions: s.sessions,
        now: Date.now,
      }),
    // As createServices: autopay holds the main series' captive numbers when a draw is opened by
    // sell-out succession or by an admin, never by a customer's ensure-open-draw (RULES A3).
    draws: () =>
      (require('../src/draws/service') as typeof import('../src/draws/service')).createDrawsService({
        db: s.db,
        logger: s.logger,
        readCache: s.readCache,
        onDrawOpened: [(trx, draw, by) => (require('../src/autopay/holds') as typeof import('../src/autopay/holds')).holdCaptiveNumbers(trx, draw, by)],
      }),
    reservations: () =>
      (require('../src/draws/reservations') as typeof import('../src/draws/reservations')).createReservationsService({
        db: s.db,
        queue: s.queue,
        logger: s.logger,
        rateLimits: s.rateLimits,
        draws: s.draws,
        onReservationEnded,
      }),
    vouchers: () =>
      (require('../src/draws/vouchers') as typeof import('../src/draws/vouchers')).createVouchersService({ db: s.db, logger: s.logger, draws: s.draws, onReservationEnded, onDrawnSalesVoided }),
    auditLog: () => (require('../src/audit/service') as typeof import('../src/audit/service')).createAuditLogService({ db: s.db }),
    adminDraws: () =>
      (require('../src/draws/admin') as typeof import('../src/draws/admin')).createAdminDrawsService({ db: s.db, draws: s.draws, readCache: s.readCache, logger: s.logger }),
    adminHistory: () => (require('../src/draws/admin-history') as typeof import('../src/draws/admin-history')).createAdminHistoryService({ db: s.db }),
    openBuyers: () => (require('../src/draws/open-buyers') as typeof import('../src/draws/open-buyers')).createOpenBuyersService({ db: s.db, draws: s.draws }),
    winners: () =>
      (require('../src/results/winners') as typeof import('../src/results/winners')).createWinnersService({ db: s.db, draws: s.draws, readCache: s.readCache, logger: s.logger }),
    catalogue: () =>
      (require('../src/catalogue/service') as typeof import('../src/catalogue/service')).createCatalogueService({ db: s.db, draws: s.draws, readCache: s.readCache }),

    payments: () => {
      const { provider, sandbox } = paymentProviders();
      return (require('../src/payments/service') as typeof import('../src/payments/service')).createPaymentsService({
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
        userData: s.sessions,
        receipts: (require('../src/payments/receipt') as typeof import('../src/payments/receipt')).createReceipts({
          mailer: s.mailer,
          publicUrl: config.publicUrl,
          onDispatchError: (outboxId, err) => s.logger.warn({ outboxId, err: err.message }, 'receipt mail: dispatch failed; the sweep sends it'),
        }),
      });
    },
    coupons: () => {
      const adapters = require('../src/coupons/adapters') as typeof import('../src/coupons/adapters');
      const adapter =
        config.coupons.adapter === 'webhook'
          ? adapters.createWebhookAdapter({ url: config.coupons.webhookUrl as string, secret: config.coupons.webhookSecret as string, logger: s.logger })
          : adapters.noneAdapter;
      return (require('../src/coupons/service') as typeof import('../src/coupons/service')).createCouponsService({ db: s.db, logger: s.logger, queue: s.queue, adapter });
    },
    participations: () => (require('../src/payments/participations') as typeof import('../src/payments/participations')).createParticipationsService({ db: s.db }),
    myBoard: () => (require('../src/draws/my-board') as typeof import('../src/draws/my-board')).createMyBoardService({ db: s.db }),
    ebooks: () =>
      (require('../src/catalogue/ebooks') as typeof import('../src/catalogue/ebooks')).createEbooksService({
        db: s.db,
        appSecret: config.appSecret,
        storageDir: config.ebookStorageDir,
        adminEmails: config.adminEmails,
        logger: s.logger,
      }),
    account: () =>
      (require('../src/account/service') as typeof import('../src/account/service')).createAccountService({ db: s.db, catalogue: s.catalogue, coupons: s.coupons, readCache: s.readCache }),
    adminInfoproducts: () =>
      (require('../src/catalogue/admin') as typeof import('../src/catalogue/admin')).createAdminInfoproductsService({
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
      return (require('../src/payments/review') as typeof import('../src/payments/review')).createPaymentsReviewService({
        db: s.db,
        payments: s.payments,
        sandboxActive: !!sandbox && provider.name === 'sandbox',
      });
    },
    lottery: () => (require('../src/results/lottery-client') as typeof import('../src/results/lottery-client')).createLotteryClient({ ...config.lottery, logger: s.logger }),
    results: () =>
      (require('../src/results/service') as typeof import('../src/results/service')).createResultsService({
        db: s.db,
        logger: s.logger,
        mailer: s.mailer,
        readCache: s.readCache,
        draws: s.draws,
        lottery: s.lottery,
        publicUrl: config.publicUrl,
      }),
    ops: () =>
      (require('../src/ops/service') as typeof import('../src/ops/service')).createOpsService({
        db: s.db,
        config,
        queue: s.queue,
        redis: s.fastRedis,
        prefix: config.queuePrefix,
        logger: s.logger,
      }),
    autopay: () => {
      const { provider, sandbox } = paymentProviders();
      return (require('../src/autopay/service') as typeof import('../src/autopay/service')).createAutopayService({
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
    // Pumps only the streams this process serves: none in the CLI (web processes pump theirs on the bus).
    live: () =>
      (require('../src/live/live') as typeof import('../src/live/live')).createLiveBoards({
        db: s.db,
        redis: s.fastRedis,
        readCache: s.readCache,
        prefix: config.queuePrefix,
        logger: s.logger,
        maxStreams: config.live.maxStreams,
        maxStreamsPerClient: config.live.maxStreamsPerClient,
        heartbeatMs: config.live.heartbeatMs,
        streamMaxLen: config.live.streamMaxLen,
      }),
    figures: () => (require('../src/ops/figures') as typeof import('../src/ops/figures')).createFiguresService({ db: s.db }),
    books: () => (require('../src/audit/books') as typeof import('../src/audit/books')).createBooksService({ db: s.db, logger: s.logger }),
    backups: () => (require('../src/ops/backups') as typeof import('../src/ops/backups')).createBackupsService({ db: s.db, config, logger: s.logger, books: s.books }),
    adminUsers: () =>
      (require('../src/auth/admin-users') as typeof import('../src/auth/admin-users')).createAdminUsersService({
        db: s.db,
        logger: s.logger,
        mailer: s.mailer,
        adminEmails: config.adminEmails,
        draws: s.draws,
        reservations: s.reservations,
        coupons: s.coupons,
        readCache: s.readCache,
        assignments: (require('../src/draws/assign') as typeof import('../src/draws/assign')).createNumberAssignmentsService({
          db: s.db,
          draws: s.draws,
          reservations: s.reservations,
          recordAdminPayment: (require('../src/payments/records') as typeof import('../src/payments/records')).recordAdminAssignment,
        }),
        sessions: s.sessions,
        forgetUser: [(trx, u) => s.autopay.forgetUser(trx, u), (trx, u) => s.mailer.forgetUser(trx, u), (trx, u) => s.auth.forgetUser(trx, u)],
      }),
  };
  for (const key of Object.keys(makers) as Array<keyof typeof makers>) define(key, makers[key]);

  s.close = async () => {
    // Only what a command built: closing touches nothing new.
    if (built.has('live')) s.live.closeAll();
    if (built.has('cacheBus')) await s.cacheBus.close().catch(() => {});
    if (built.has('queue')) await s.queue.close().catch(() => {});
    if (built.has('db')) await s.db.destroy().catch(() => {});
    if (built.has('redis')) s.redis.disconnect();
    if (built.has('fastRedis')) s.fastRedis.disconnect();
  };
  return s;
}

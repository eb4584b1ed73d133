/* eslint-disable @typescript-eslint/no-require-imports */
import './platform/validation'; // zod's Portuguese messages, before any schema is used
import { loadConfig, type Config } from './platform/config';
import type { Db } from './platform/db';
import type { Logger } from './platform/logger';
import type { Redis } from './platform/redis';
import type { JobQueue } from './platform/queue';
import type { RateLimits } from './platform/rate-limit';
import type { Mailer } from './platform/mail';
import type { Invalidation, ReadCache } from './platform/read-cache';
import type { CacheBus } from './platform/cache-bus';
import type { SessionCache, SessionChange } from './platform/session-cache';
import type { UserReadCache } from './platform/user-read-cache';
import type { SessionUser } from './platform/http/context';
import type { OpsService } from './ops/service';
import type { AuthService } from './auth/service';
import type { DrawsService } from './draws/service';
import type { ReservationsService } from './draws/reservations';
import type { VouchersService } from './draws/vouchers';
import type { AdminDrawsService } from './draws/admin';
import type { AuditLogService } from './audit/service';
import type { AdminHistoryService } from './draws/admin-history';
import type { OpenBuyersService } from './draws/open-buyers';
import type { WinnersService } from './draws/winners';
import type { AdminInfoproductsService } from './catalogue/admin';
import type { PaymentsReviewService } from './payments/review';
import type { CatalogueService } from './catalogue/service';
import type { PaymentsService } from './payments/service';
import type { PaymentProvider } from './payments/providers/types';
import type { ParticipationsService } from './payments/participations';
import type { MyBoardService } from './draws/my-board';
import type { EbooksService } from './catalogue/ebooks';
import type { AccountService } from './account/service';
import type { CouponsService } from './coupons/service';
import type { CouponPushAdapter } from './coupons/adapters';
import type { LotteryClient } from './draws/lottery-client';
import type { ResultsService } from './draws/results';
import type { AutopayService } from './autopay/service';
import type { AdminUsersService } from './auth/admin-users';
import type { LiveBoards } from './draws/live';
import type { FiguresService } from './ops/figures';
import type { BooksService } from './audit/books';
import type { BackupsService } from './ops/backups';

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
export interface Services {
  config: Config;
  logger: Logger;
  db: Db;
  /** For BullMQ workers (commands wait for Redis); connects on first use. */
  redis: Redis;
  /** For request paths (queue, rate limits, readiness): fails fast while Redis is down. */
  fastRedis: Redis;
  queue: JobQueue;
  rateLimits: RateLimits;
  mailer: Mailer;
  /** The per-process cache of public reads (see platform/read-cache.ts). */
  readCache: ReadCache;
  /** Publishes this process's read-cache invalidations through Redis; web processes also subscribe (createApp). */
  cacheBus: CacheBus;
  /** Signed-in sessions (platform/session-cache.ts): trusted only in web processes, while the bus is live. */
  sessions: SessionCache<SessionUser>;
  /** A signed-in user's repeated reads (platform/user-read-cache.ts), dropped with their sessions. */
  userReads: UserReadCache;
  auth: AuthService;
  draws: DrawsService;
  reservations: ReservationsService;
  vouchers: VouchersService;
  /** The admin console's draws, dashboard and ticket price (RULES D3, N7). */
  adminDraws: AdminDrawsService;
  /** The audit log, read-only (entries are written by each module's own service). */
  auditLog: AuditLogService;
  /** Held raffles and their participants. */
  adminHistory: AdminHistoryService;
  /** Buyers of the active draw. */
  openBuyers: OpenBuyersService;
  /** Winners and their prizes (RULES W6). */
  winners: WinnersService;
  catalogue: CatalogueService;
  payments: PaymentsService;
  coupons: CouponsService;
  participations: ParticipationsService;
  myBoard: MyBoardService;
  ebooks: EbooksService;
  account: AccountService;
  /** The admin console's e-books and their uploads. */
  adminInfoproducts: AdminInfoproductsService;
  /** Payments to review: admin console and `cotaverde payments` (RULES P5, P6). */
  paymentsReview: PaymentsReviewService;
  /** Lotomania results and the draws they decide (RULES W1-W5). */
  results: ResultsService;
  lottery: LotteryClient;
  /** Operations: the /ops dashboard's signed sessions, queue counts and retries. */
  ops: OpsService;
  /** Captive numbers bought with a saved card in every new main draw (RULES A2-A4). */
  autopay: AutopayService;
  /** The admin console's customer registry, number assignment and active balances (RULES N6, C5, U4). */
  adminUsers: AdminUsersService;
  /** Live boards: the server-sent event streams of GET /api/draws/{id}/events (draws/live.ts). */
  live: LiveBoards;
  /** The console dashboard's charts: sales, revenue, boards, PIX conversion (ops/figures.ts). */
  figures: FiguresService;
  /** The books: every module's invariants checked on the live database (RULES B1). */
  books: BooksService;
  /** Backups of the whole database: the nightly job, `cotaverde db backup`, the console's last backup (ops/backups.ts). */
  backups: BackupsService;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  config?: Config;
  /** The logger, or how to make it on first use (the CLI's logs go to stderr: stdout is a command's answer). */
  logger?: Logger | (() => Logger);
  db?: Db;
  paymentProvider?: PaymentProvider;
  couponAdapter?: CouponPushAdapter;
  readCache?: ReadCache;
  lotteryClient?: LotteryClient;
  /** The clock of two-factor codes (ms since the epoch); tests move it. */
  now?: () => number;
}

type Makers = { [K in Exclude<keyof Services, 'close'>]: () => Services[K] };

/** `target` with its listener registration `method` handing the listener to `keep` instead. */
function redirectListener<T extends object>(target: T, method: keyof T, keep: (listener: never) => void): T {
  return new Proxy(target, {
    get(t, prop) {
      if (prop === method) return keep;
      const v = Reflect.get(t, prop, t);
      return typeof v === 'function' ? v.bind(t) : v;
    },
  });
}

export function createServices(overrides: ServiceOverrides = {}): Services {
  const config = overrides.config ?? loadConfig();
  const s = {} as Services;
  const built = new Set<keyof Services>();
  /**
   * What is built right after a service because it registers itself on that service when built:
   * auth registers the renderers of its mails (password reset, admin e-mail confirmation) on the
   * mailer, so every process that can deliver a mail can render them.
   */
  const alongWith: Partial<Record<keyof Services, keyof Services>> = { mailer: 'auth' };
  /** The services being built now (a service that needs the mailer is built before it is done). */
  const building = new Set<keyof Services>();
  /** `key` becomes a getter that builds the service on first read, then returns that one. */
  const define = <K extends keyof Services>(key: K, make: () => Services[K]) => {
    let value: Services[K];
    Object.defineProperty(s, key, {
      enumerable: true,
      configurable: true,
      get() {
        if (!built.has(key)) {
          if (building.has(key)) throw new Error(`createServices: ${key} needs itself to be built`);
          building.add(key);
          try {
            value = make();
          } finally {
            building.delete(key);
          }
          built.add(key);
          const along = alongWith[key];
          // Unless it is the one being built (it asked for this service): it finishes by itself.
          if (along && !building.has(along)) void s[along];
        }
        return value;
      },
    });
  };

  /**
   * The read-cache bus's listeners, once the bus exists. The bus is built on this process's first
   * invalidation or session change (or when a web process subscribes, createApp), so a process
   * that changes nothing opens no Redis connection for it; see readCache, sessions and cacheBus.
   */
  let busListener: ((m: Invalidation) => void) | undefined;
  let busSessionListener: ((c: SessionChange) => Promise<void> | void) | undefined;

  /** The payment provider and the sandbox: chosen here, once, for payments, autopay and the review. */
  let providers: { provider: PaymentProvider; sandbox: ReturnType<typeof import('./payments/providers').createProvider>['sandbox'] } | undefined;
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
  const onDrawnSalesVoided: Parameters<typeof import('./draws/vouchers').createVouchersService>[0]['onDrawnSalesVoided'] = (trx, e) => s.results.redecideAfterRefund(trx, e);
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
      const fastRedis = (require('./platform/redis') as typeof import('./platform/redis')).createRedis(config.redisUrl, 'cotaverde-app', 'fail-fast');
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
    rateLimits: () => (require('./platform/rate-limit') as typeof import('./platform/rate-limit')).createRateLimits(s.fastRedis, config.queuePrefix, config.rateLimitDisabled),
    mailer: () =>
      (require('./platform/mail') as typeof import('./platform/mail')).createMailer({
        db: s.db,
        queue: s.queue,
        logger: s.logger,
        smtpUrl: config.smtpUrl,
        dropDir: config.mailDropDir,
        from: config.mailFrom,
        replyTo: config.supportEmail,
      }),
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
        sessions: redirectListener(s.sessions as SessionCache<unknown>, 'onChange', (l: typeof busSessionListener) => void (busSessionListener = l)),
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
        onDrawOpened: [(trx, draw, by) => (require('./autopay/holds') as typeof import('./autopay/holds')).holdCaptiveNumbers(trx, draw, by)],
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
    vouchers: () => (require('./draws/vouchers') as typeof import('./draws/vouchers')).createVouchersService({ db: s.db, logger: s.logger, draws: s.draws, onReservationEnded, onDrawnSalesVoided }),
    auditLog: () => (require('./audit/service') as typeof import('./audit/service')).createAuditLogService({ db: s.db }),
    adminDraws: () => (require('./draws/admin') as typeof import('./draws/admin')).createAdminDrawsService({ db: s.db, draws: s.draws, readCache: s.readCache, logger: s.logger }),
    adminHistory: () => (require('./draws/admin-history') as typeof import('./draws/admin-history')).createAdminHistoryService({ db: s.db }),
    openBuyers: () => (require('./draws/open-buyers') as typeof import('./draws/open-buyers')).createOpenBuyersService({ db: s.db, draws: s.draws }),
    winners: () => (require('./draws/winners') as typeof import('./draws/winners')).createWinnersService({ db: s.db, draws: s.draws, readCache: s.readCache, logger: s.logger }),
    catalogue: () => (require('./catalogue/service') as typeof import('./catalogue/service')).createCatalogueService({ db: s.db, draws: s.draws, readCache: s.readCache }),
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
          onDispatchError: (outboxId, err) => s.logger.warn({ outboxId, err: err.message }, 'receipt mail: dispatch failed; the sweep sends it'),
        }),
        userData: s.sessions,
      });
    },
    coupons: () => {
      const adapters = require('./coupons/adapters') as typeof import('./coupons/adapters');
      const adapter =
        overrides.couponAdapter ??
        (config.coupons.adapter === 'webhook'
          ? adapters.createWebhookAdapter({ url: config.coupons.webhookUrl as string, secret: config.coupons.webhookSecret as string, logger: s.logger })
          : adapters.noneAdapter);
      return (require('./coupons/service') as typeof import('./coupons/service')).createCouponsService({ db: s.db, logger: s.logger, queue: s.queue, adapter });
    },
    participations: () => (require('./payments/participations') as typeof import('./payments/participations')).createParticipationsService({ db: s.db }),
    myBoard: () => (require('./draws/my-board') as typeof import('./draws/my-board')).createMyBoardService({ db: s.db }),
    ebooks: () =>
      (require('./catalogue/ebooks') as typeof import('./catalogue/ebooks')).createEbooksService({
        db: s.db,
        appSecret: config.appSecret,
        storageDir: config.ebookStorageDir,
        adminEmails: config.adminEmails,
        logger: s.logger,
      }),
    account: () => (require('./account/service') as typeof import('./account/service')).createAccountService({ db: s.db, catalogue: s.catalogue, coupons: s.coupons, readCache: s.readCache }),
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
      return (require('./payments/review') as typeof import('./payments/review')).createPaymentsReviewService({ db: s.db, payments: s.payments, sandboxActive: !!sandbox && provider.name === 'sandbox' });
    },
    lottery: () => overrides.lotteryClient ?? (require('./draws/lottery-client') as typeof import('./draws/lottery-client')).createLotteryClient({ ...config.lottery, logger: s.logger }),
    results: () =>
      (require('./draws/results') as typeof import('./draws/results')).createResultsService({
        db: s.db,
        logger: s.logger,
        mailer: s.mailer,
        readCache: s.readCache,
        draws: s.draws,
        lottery: s.lottery,
        publicUrl: config.publicUrl,
      }),
    ops: () =>
      (require('./ops/service') as typeof import('./ops/service')).createOpsService({ db: s.db, config, queue: s.queue, redis: s.fastRedis, prefix: config.queuePrefix, logger: s.logger }),
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
      liveRedis = (require('./platform/redis') as typeof import('./platform/redis')).createRedis(config.redisUrl, 'cotaverde-live', 'fail-fast', {
        commandTimeoutMs: config.live.redisTimeoutMs,
        lazy: true,
      });
      return (require('./draws/live') as typeof import('./draws/live')).createLiveBoards({
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
    backups: () => (require('./ops/backups') as typeof import('./ops/backups')).createBackupsService({ db: s.db, config, logger: s.logger, books: s.books }),
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
        forgetUser: [(trx, u) => s.autopay.forgetUser(trx, u), (trx, u) => s.mailer.forgetUser(trx, u), (trx, u) => s.auth.forgetUser(trx, u)],
      }),
  };
  for (const key of Object.keys(makers) as Array<keyof Makers>) define(key, makers[key]);

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

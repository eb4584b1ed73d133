import './platform/validation'; // zod's Portuguese messages, before any schema is used
import { loadConfig, type Config } from './platform/config';
import { createDb, type Db } from './platform/db';
import { createLogger, type Logger } from './platform/logger';
import { createRedis, type Redis } from './platform/redis';
import { createJobQueue, type JobQueue } from './platform/queue';
import { createRateLimits, type RateLimits } from './platform/rate-limit';
import { createMailer, type Mailer } from './platform/mail';
import { ReadCache } from './platform/read-cache';
import { createCacheBus, type CacheBus } from './platform/cache-bus';
import { SessionCache } from './platform/session-cache';
import { UserReadCache } from './platform/user-read-cache';
import type { SessionUser } from './platform/http/context';
import { createOpsService, type OpsService } from './ops/service';
import { createAuthService, type AuthService } from './auth/service';
import { holdCaptiveNumbers } from './autopay/holds';
import { createDrawsService, type DrawsService } from './draws/service';
import { createReservationsService, type ReservationsService } from './draws/reservations';
import { cancelPendingPaymentsOfReservation } from './payments/queries';
import { createVouchersService, type VouchersService } from './draws/vouchers';
import { createAdminDrawsService, type AdminDrawsService } from './draws/admin';
import { createAuditLogService, type AuditLogService } from './audit/service';
import { createAdminHistoryService, type AdminHistoryService } from './draws/admin-history';
import { createOpenBuyersService, type OpenBuyersService } from './draws/open-buyers';
import { createWinnersService, type WinnersService } from './draws/winners';
import { createAdminInfoproductsService, type AdminInfoproductsService } from './catalogue/admin';
import { createPaymentsReviewService, type PaymentsReviewService } from './payments/review';
import { createCatalogueService, type CatalogueService } from './catalogue/service';
import { createPaymentsService, type PaymentsService } from './payments/service';
import { createProvider } from './payments/providers';
import type { PaymentProvider } from './payments/providers/types';
import { createParticipationsService, type ParticipationsService } from './payments/participations';
import { createReceipts } from './payments/receipt';
import { createMyBoardService, type MyBoardService } from './draws/my-board';
import { createEbooksService, type EbooksService } from './catalogue/ebooks';
import { createAccountService, type AccountService } from './account/service';
import { createCouponsService, type CouponsService } from './coupons/service';
import { createWebhookAdapter, noneAdapter, type CouponPushAdapter } from './coupons/adapters';
import { createLotteryClient, type LotteryClient } from './draws/lottery-client';
import { createResultsService, type ResultsService } from './draws/results';
import { createAutopayService, type AutopayService } from './autopay/service';
import { createNumberAssignmentsService } from './draws/assign';
import { recordAdminAssignment } from './payments/records';
import { createAdminUsersService, type AdminUsersService } from './auth/admin-users';
import { createLiveBoards, type LiveBoards } from './draws/live';
import { createFiguresService, type FiguresService } from './ops/figures';
import { createBooksService, type BooksService } from './audit/books';
import { createBackupsService, type BackupsService } from './ops/backups';

/**
 * The one composition root: the Koa app, the worker and the CLI all call it.
 * Plain factories, no container: each module's service gets what it needs.
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
  logger?: Logger;
  db?: Db;
  paymentProvider?: PaymentProvider;
  couponAdapter?: CouponPushAdapter;
  readCache?: ReadCache;
  lotteryClient?: LotteryClient;
  /** The clock of two-factor codes (ms since the epoch); tests move it. */
  now?: () => number;
}

export function createServices(overrides: ServiceOverrides = {}): Services {
  const config = overrides.config ?? loadConfig();
  const logger = overrides.logger ?? createLogger({ level: config.logLevel });
  const db = overrides.db ?? createDb(config.databaseUrl, config.dbPoolMax);
  const redis = createRedis(config.redisUrl);
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis connection error'));
  const fastRedis = createRedis(config.redisUrl, 'cotaverde-app', 'fail-fast');
  // One line per outage, not one per reconnection attempt.
  let redisDown = false;
  fastRedis.on('error', (err) => {
    if (!redisDown) logger.warn({ err: err.message }, 'redis unreachable: jobs are left to the sweeps, rate limits are per process');
    redisDown = true;
  });
  fastRedis.on('ready', () => {
    if (redisDown) logger.info('redis reachable again');
    redisDown = false;
  });
  const queue = createJobQueue(fastRedis, config.queuePrefix);
  const rateLimits = createRateLimits(fastRedis, config.queuePrefix, config.rateLimitDisabled);
  const mailer = createMailer({ db, queue, logger, smtpUrl: config.smtpUrl, dropDir: config.mailDropDir, from: config.mailFrom, replyTo: config.supportEmail });
  const sessions = new SessionCache<SessionUser>();
  const userReads = new UserReadCache();
  sessions.alsoDrop((userId) => userReads.dropUser(userId));
  const auth = createAuthService({ db, config, rateLimits, mailer, logger, sessions, now: overrides.now ?? Date.now });
  const readCache = overrides.readCache ?? new ReadCache();
  const cacheBus = createCacheBus({ cache: readCache, sessions: sessions as SessionCache<unknown>, publisher: fastRedis, redisUrl: config.redisUrl, channel: `${config.queuePrefix}:read-cache`, logger });
  // Draw-opened hooks run in the opening transaction: autopay holds the captive numbers of the
  // main series' new draw (RULES A2), only when opened by sell-out succession or by an admin,
  // never by a customer's ensure-open-draw (RULES A3). Wired here so draws never imports autopay.
  const draws = createDrawsService({ db, logger, readCache, onDrawOpened: [holdCaptiveNumbers] });
  // A reservation that ended (expired, or confirmed with vouchers) leaves its PIX unpayable:
  // payments cancels it, here and at the provider. Wired here so draws never imports payments.
  const onReservationEnded = (reservationId: number, reason: string) => cancelPendingPaymentsOfReservation(db, reservationId, reason);
  const reservations = createReservationsService({ db, queue, logger, rateLimits, draws, onReservationEnded });
  // RULES W8: a refund that voids a drawn draw's winning sale re-decides it in the refund's
  // transaction; results (built below, called only later) owns the decision. Wired here so
  // vouchers never builds results.
  const onDrawnSalesVoided: Parameters<typeof createVouchersService>[0]['onDrawnSalesVoided'] = (trx, e) => results.redecideAfterRefund(trx, e);
  const vouchers = createVouchersService({ db, logger, draws, onReservationEnded, onDrawnSalesVoided });
  const auditLog = createAuditLogService({ db });
  const adminDraws = createAdminDrawsService({ db, draws, readCache, logger });
  const adminHistory = createAdminHistoryService({ db });
  const openBuyers = createOpenBuyersService({ db, draws });
  const winners = createWinnersService({ db, draws, readCache, logger });
  const catalogue = createCatalogueService({ db, draws, readCache });
  const chosen = createProvider(config, { db });
  const sandbox = chosen.sandbox;
  const provider: PaymentProvider = overrides.paymentProvider ?? chosen.provider;
  const receipts = createReceipts({
    mailer,
    publicUrl: config.publicUrl,
    onDispatchError: (outboxId, err) => logger.warn({ outboxId, err: err.message }, 'receipt mail: dispatch failed; the sweep sends it'),
  });
  const payments = createPaymentsService({ db, config, logger, queue, rateLimits, vouchers, draws, reservations, provider, sandbox, receipts, userData: sessions });
  const couponAdapter =
    overrides.couponAdapter ??
    (config.coupons.adapter === 'webhook'
      ? createWebhookAdapter({ url: config.coupons.webhookUrl as string, secret: config.coupons.webhookSecret as string, logger })
      : noneAdapter);
  const coupons = createCouponsService({ db, logger, queue, adapter: couponAdapter });
  const participations = createParticipationsService({ db });
  const myBoard = createMyBoardService({ db });
  const ebooks = createEbooksService({ db, appSecret: config.appSecret, storageDir: config.ebookStorageDir, adminEmails: config.adminEmails, logger });
  const account = createAccountService({ db, catalogue, coupons, readCache });
  const adminInfoproducts = createAdminInfoproductsService({
    db,
    readCache,
    logger,
    ebookStorageDir: config.ebookStorageDir,
    coverStorageDir: config.uploads.coverStorageDir,
    ebookMaxBytes: config.uploads.ebookMaxBytes,
    coverMaxBytes: config.uploads.coverMaxBytes,
    draws,
  });
  const paymentsReview = createPaymentsReviewService({ db, payments, sandboxActive: !!sandbox && provider.name === 'sandbox' });
  const lottery = overrides.lotteryClient ?? createLotteryClient({ ...config.lottery, logger });
  const results = createResultsService({ db, logger, mailer, readCache, draws, lottery, publicUrl: config.publicUrl });
  const ops = createOpsService({ db, config, queue, redis: fastRedis, prefix: config.queuePrefix, logger });
  const autopay = createAutopayService({ db, config, logger, queue, draws, payments, provider, sandbox: provider === sandbox ? sandbox : null });
  // The live boards' own connection (connected on first use, so only web processes with streams
  // open it): a slow Redis is waited for, not taken for a down one.
  const liveRedis = createRedis(config.redisUrl, 'cotaverde-live', 'fail-fast', { commandTimeoutMs: config.live.redisTimeoutMs, lazy: true });
  const live = createLiveBoards({
    db,
    redis: liveRedis,
    readCache,
    prefix: config.queuePrefix,
    logger,
    maxStreams: config.live.maxStreams,
    maxStreamsPerClient: config.live.maxStreamsPerClient,
    heartbeatMs: config.live.heartbeatMs,
    streamMaxLen: config.live.streamMaxLen,
  });
  const books = createBooksService({ db, logger });
  const backups = createBackupsService({ db, config, logger, books });
  const assignments = createNumberAssignmentsService({ db, draws, reservations, recordAdminPayment: recordAdminAssignment });
  const adminUsers = createAdminUsersService({
    db,
    logger,
    mailer,
    adminEmails: config.adminEmails,
    draws,
    reservations,
    coupons,
    readCache,
    assignments,
    sessions,
    forgetUser: [(trx, u) => autopay.forgetUser(trx, u), (trx, u) => mailer.forgetUser(trx, u), (trx, u) => auth.forgetUser(trx, u)],
  });

  return {
    config,
    logger,
    db,
    redis,
    fastRedis,
    queue,
    rateLimits,
    mailer,
    readCache,
    cacheBus,
    sessions,
    userReads,
    auth,
    draws,
    reservations,
    vouchers,
    adminDraws,
    auditLog,
    adminHistory,
    openBuyers,
    winners,
    catalogue,
    payments,
    coupons,
    participations,
    myBoard,
    ebooks,
    account,
    adminInfoproducts,
    paymentsReview,
    results,
    lottery,
    ops,
    autopay,
    adminUsers,
    live,
    figures: createFiguresService({ db }),
    books,
    backups,
    async close() {
      live.closeAll();
      await cacheBus.close().catch(() => {});
      await queue.close().catch(() => {});
      await db.destroy().catch(() => {});
      redis.disconnect();
      fastRedis.disconnect();
      liveRedis.disconnect();
    },
  };
}

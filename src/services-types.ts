import type { Config } from './platform/config';
import type { Db } from './platform/db';
import type { Logger } from './platform/logger';
import type { Redis } from './platform/redis';
import type { JobQueue } from './platform/queue';
import type { RateLimits } from './platform/rate-limit';
import type { Mailer } from './platform/mail';
import type { ReadCache } from './platform/read-cache';
import type { CacheBus } from './platform/cache-bus';
import type { SessionCache } from './platform/session-cache';
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
import type { WinnersService } from './results/winners';
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
import type { LotteryClient } from './results/lottery-client';
import type { ResultsService } from './results/service';
import type { AutopayService } from './autopay/service';
import type { AdminUsersService } from './auth/admin-users';
import type { LiveBoards } from './live/live';
import type { FiguresService } from './ops/figures';
import type { BooksService } from './audit/books';
import type { BackupsService } from './ops/backups';

/**
 * What createServices (src/services.ts, the one composition root) offers: every module's service,
 * each built on first use, and close(). Kept apart from the wiring so the root stays readable.
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
  /** Live boards: the server-sent event streams of GET /api/draws/{id}/events (live/live.ts). */
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

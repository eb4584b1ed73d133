import { loadConfig, type Config } from './platform/config';
import { createDb, type Db } from './platform/db';
import { createLogger, type Logger } from './platform/logger';
import { createRedis, type Redis } from './platform/redis';
import { createJobQueue, type JobQueue } from './platform/queue';
import { createRateLimits, type RateLimits } from './platform/rate-limit';
import { createMailer, type Mailer } from './platform/mail';
import { createAuthService, type AuthService } from './auth/service';
import { createDrawsService, type DrawsService } from './draws/service';
import { createReservationsService, type ReservationsService } from './draws/reservations';
import { createVouchersService, type VouchersService } from './draws/vouchers';
import { createCatalogueService, type CatalogueService } from './catalogue/service';
import { createPaymentsService, type PaymentsService } from './payments/service';
import { createSandboxProvider } from './payments/providers/sandbox';
import { createMercadoPagoProvider } from './payments/providers/mercadopago';
import type { PaymentProvider } from './payments/providers/types';

/**
 * The one composition root: the Koa app, the worker and the CLI all call it.
 * Plain factories, no container: each module's service gets what it needs.
 */
export interface Services {
  config: Config;
  logger: Logger;
  db: Db;
  redis: Redis;
  queue: JobQueue;
  rateLimits: RateLimits;
  mailer: Mailer;
  auth: AuthService;
  draws: DrawsService;
  reservations: ReservationsService;
  vouchers: VouchersService;
  catalogue: CatalogueService;
  payments: PaymentsService;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  config?: Config;
  logger?: Logger;
  db?: Db;
  paymentProvider?: PaymentProvider;
}

export function createServices(overrides: ServiceOverrides = {}): Services {
  const config = overrides.config ?? loadConfig();
  const logger = overrides.logger ?? createLogger({ level: config.logLevel });
  const db = overrides.db ?? createDb(config.databaseUrl, config.dbPoolMax);
  const redis = createRedis(config.redisUrl);
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis connection error'));
  const queue = createJobQueue(redis, config.queuePrefix);
  const limitsRedis = createRedis(config.redisUrl, 'cotaverde-limits', 'fail-fast');
  limitsRedis.on('error', () => {});
  const rateLimits = createRateLimits(limitsRedis, config.queuePrefix, config.rateLimitDisabled);
  const mailer = createMailer({ db, queue, logger, smtpUrl: config.smtpUrl, from: config.mailFrom });
  const auth = createAuthService({ db, config, rateLimits, mailer, logger });
  const draws = createDrawsService({ db, logger });
  const reservations = createReservationsService({ db, queue, logger, rateLimits, draws });
  const vouchers = createVouchersService({ db, logger, draws });
  const catalogue = createCatalogueService({ db, draws });
  const sandbox =
    config.payments.provider === 'sandbox'
      ? createSandboxProvider({ db, pix: config.payments.pix, autoApproveSeconds: config.payments.sandboxAutoApproveSeconds })
      : null;
  const provider: PaymentProvider =
    overrides.paymentProvider ??
    sandbox ??
    createMercadoPagoProvider({
      apiUrl: config.payments.mercadopago.apiUrl,
      accessToken: config.payments.mercadopago.accessToken as string,
      notificationUrl: `${config.publicUrl}/api/webhooks/mercadopago`,
    });
  const payments = createPaymentsService({ db, config, logger, queue, rateLimits, vouchers, draws, reservations, provider, sandbox });

  return {
    config,
    logger,
    db,
    redis,
    queue,
    rateLimits,
    mailer,
    auth,
    draws,
    reservations,
    vouchers,
    catalogue,
    payments,
    async close() {
      await queue.close().catch(() => {});
      await db.destroy().catch(() => {});
      redis.disconnect();
      limitsRedis.disconnect();
    },
  };
}

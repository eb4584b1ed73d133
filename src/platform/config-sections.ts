/**
 * The settings of the customer area, the lottery results, the live boards and the backups: each
 * area's env schema and loader, and the small zod readers every env schema uses. `loadConfig`
 * (config.ts) calls the loaders and collects their problems.
 */
import path from 'node:path';
import { z } from 'zod';
import { PROJECT_ROOT } from './paths';
export const bool = z
  .string()
  .optional()
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

export const list = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );

/** Empty strings count as unset (a blank line in an env file must not satisfy a requirement). */
export const optionalString = z.preprocess((v) => (v === '' ? undefined : v), z.string().optional());

// ---- Customer area: coupon partner push and e-book files. ----
const AccountEnvSchema = z.object({
  COUPON_ADAPTER: z.enum(['none', 'webhook']).default('none'),
  COUPON_WEBHOOK_URL: z.string().url().optional(),
  COUPON_WEBHOOK_SECRET: z.string().optional(),
  EBOOK_STORAGE_DIR: z.string().min(1).default('storage/ebooks'),
  // Admin uploads: e-book PDFs (private, in EBOOK_STORAGE_DIR) and covers (public).
  COVER_STORAGE_DIR: z.string().min(1).default('storage/covers'),
  EBOOK_MAX_UPLOAD_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(500 * 1024 * 1024)
    .default(50 * 1024 * 1024),
  COVER_MAX_UPLOAD_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(50 * 1024 * 1024)
    .default(5 * 1024 * 1024),
});

export function loadAccountConfig(env: NodeJS.ProcessEnv, problems: string[]) {
  const parsed = AccountEnvSchema.safeParse(env);
  if (!parsed.success) {
    problems.push(...parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
    return null;
  }
  const e = parsed.data;
  if (e.COUPON_ADAPTER === 'webhook') {
    if (!e.COUPON_WEBHOOK_URL) problems.push('COUPON_WEBHOOK_URL is required with COUPON_ADAPTER=webhook');
    if (!e.COUPON_WEBHOOK_SECRET || e.COUPON_WEBHOOK_SECRET.length < 16)
      problems.push('COUPON_WEBHOOK_SECRET (at least 16 characters) is required with COUPON_ADAPTER=webhook');
  }
  return {
    coupons: { adapter: e.COUPON_ADAPTER, webhookUrl: e.COUPON_WEBHOOK_URL, webhookSecret: e.COUPON_WEBHOOK_SECRET },
    ebookStorageDir: path.resolve(e.EBOOK_STORAGE_DIR),
    uploads: {
      coverStorageDir: path.resolve(e.COVER_STORAGE_DIR),
      ebookMaxBytes: e.EBOOK_MAX_UPLOAD_BYTES,
      coverMaxBytes: e.COVER_MAX_UPLOAD_BYTES,
    },
  };
}
// ---- end of the customer-area block ----

// ---- results block: the public Lotomania results service ----
const LotteryEnvSchema = z.object({
  LOTTERY_API_URL: z.string().url().default('https://servicebus2.caixa.gov.br/portaldeloterias/api'),
  LOTTERY_API_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  LOTTERY_API_RETRIES: z.coerce.number().int().min(0).max(10).default(3),
  LOTTERY_API_RETRY_BASE_MS: z.coerce.number().int().min(1).max(60_000).default(1000),
});

export function loadLotteryConfig(env: NodeJS.ProcessEnv, problems: string[]) {
  const parsed = LotteryEnvSchema.safeParse(env);
  if (!parsed.success) {
    problems.push(...parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
    return null;
  }
  const e = parsed.data;
  return {
    lottery: {
      apiUrl: e.LOTTERY_API_URL.replace(/\/$/, ''),
      timeoutMs: e.LOTTERY_API_TIMEOUT_MS,
      retries: e.LOTTERY_API_RETRIES,
      retryBaseMs: e.LOTTERY_API_RETRY_BASE_MS,
    },
  };
}
// ---- end of the results block ----

// ---- live boards and metrics block ----
const LiveEnvSchema = z.object({
  LIVE_MAX_STREAMS: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
  LIVE_HEARTBEAT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  LIVE_STREAM_MAXLEN: z.coerce.number().int().min(10).max(1_000_000).default(1000),
  LIVE_MAX_STREAMS_PER_CLIENT: z.coerce.number().int().min(1).max(1_000_000).default(20),
  LIVE_REDIS_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  METRICS_TOKEN: optionalString.pipe(z.string().min(16).optional()),
  WORKER_METRICS_PORT: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(0).max(65535).optional()),
});

export function loadLiveConfig(env: NodeJS.ProcessEnv, problems: string[]) {
  const parsed = LiveEnvSchema.safeParse(env);
  if (!parsed.success) {
    problems.push(...parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
    return null;
  }
  const e = parsed.data;
  return {
    live: {
      maxStreams: e.LIVE_MAX_STREAMS,
      maxStreamsPerClient: e.LIVE_MAX_STREAMS_PER_CLIENT,
      heartbeatMs: e.LIVE_HEARTBEAT_MS,
      streamMaxLen: e.LIVE_STREAM_MAXLEN,
      redisTimeoutMs: e.LIVE_REDIS_TIMEOUT_MS,
    },
    metrics: { token: e.METRICS_TOKEN, workerPort: e.WORKER_METRICS_PORT },
  };
}
// ---- end of the live boards and metrics block ----

// ---- backups block ----
const BackupEnvSchema = z.object({
  /** Where the worker writes its nightly backups (src/ops/backups.ts); `.data/app/backups` outside production. */
  BACKUP_DIR: optionalString,
  /** The platform backs the database up itself (managed PostgreSQL's backups and point-in-time recovery): no nightly file. */
  BACKUP_DISABLED: bool,
  BACKUP_KEEP_DAILY: z.coerce.number().int().min(1).max(366).default(7),
  BACKUP_KEEP_WEEKLY: z.coerce.number().int().min(0).max(520).default(4),
});

export function loadBackupConfig(env: NodeJS.ProcessEnv, isProduction: boolean, problems: string[]) {
  const parsed = BackupEnvSchema.safeParse(env);
  if (!parsed.success) {
    problems.push(...parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
    return null;
  }
  const e = parsed.data;
  if (isProduction && !e.BACKUP_DIR && !e.BACKUP_DISABLED) {
    problems.push('BACKUP_DIR is required in production (or BACKUP_DISABLED=true when the platform backs the database up)');
  }
  const dir = e.BACKUP_DIR ? path.resolve(e.BACKUP_DIR) : isProduction ? null : path.join(PROJECT_ROOT, '.data', 'app', 'backups');
  return { backup: { dir, disabled: e.BACKUP_DISABLED, keepDaily: e.BACKUP_KEEP_DAILY, keepWeekly: e.BACKUP_KEEP_WEEKLY } };
}
// ---- end of the backups block ----

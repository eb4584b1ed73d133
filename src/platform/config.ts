import { z } from 'zod';
import { announcedWebUrl } from './web-url';
import { bool, list, optionalString, loadAccountConfig, loadLotteryConfig, loadLiveConfig, loadBackupConfig } from './config-sections';
import { MERCADOPAGO_MIN_PIX_EXPIRY_MINUTES } from '../payments/providers/mercadopago';

/**
 * Every setting the app reads from the environment, validated once at start.
 * `loadConfig` throws a readable error listing every problem; in production it
 * also refuses default secrets, the sandbox payment provider, missing URLs and a missing SMTP_URL.
 * Production is any NODE_ENV but development/test (see isProductionEnv).
 */
const DEV_SECRET = 'dev-only-secret-change-me-0000000000';

/**
 * Fails closed: only `development` and `test` (exactly) are not production. Any other value
 * (`staging`, `prod`, `Production`…) gets every production check. Unset means development: the
 * two commands of the README run without it.
 */
export function isProductionEnv(nodeEnv: string | undefined): boolean {
  return nodeEnv !== undefined && nodeEnv !== '' && nodeEnv !== 'development' && nodeEnv !== 'test';
}

const EnvSchema = z.object({
  NODE_ENV: z.string().optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  PUBLIC_URL: z.string().url().optional(),
  DATABASE_URL: z.string().optional(),
  REDIS_URL: z.string().optional(),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  APP_SECRET: z.string().min(32).default(DEV_SECRET),
  CORS_ORIGINS: list,
  ADMIN_EMAILS: list,
  /** Unset: on in production, off in development and test. */
  ADMIN_MFA_REQUIRED: bool,
  SESSION_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  PASSWORD_RESET_TTL_MINUTES: z.coerce
    .number()
    .int()
    .min(5)
    .max(24 * 60)
    .default(60),
  RATE_LIMIT_DISABLED: bool,
  BODY_LIMIT: z.string().default('100kb'),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[a-z0-9_-]+$/i)
    .default('cotaverde'),
  SMTP_URL: optionalString.pipe(z.string().url().optional()),
  MAIL_FROM: z.string().default('Cota Verde <nao-responda@cotaverde.com.br>'),
  /** The store's support address: the Reply-To of every mail (required in production). */
  SUPPORT_EMAIL: optionalString.pipe(z.email('SUPPORT_EMAIL deve ser um endereço de e-mail.').optional()),
  /** Development only: without SMTP, each mail is written as an .eml file here (`npm start` sets .data/app/mail). */
  MAIL_DROP_DIR: optionalString,
  PAYMENT_PROVIDER: z.enum(['sandbox', 'mercadopago']).default('sandbox'),
  SANDBOX_AUTO_APPROVE_SECONDS: z.coerce.number().int().min(0).default(0),
  MERCADOPAGO_ACCESS_TOKEN: z.string().optional(),
  MERCADOPAGO_WEBHOOK_SECRET: z.string().optional(),
  /** The browser SDK's public key (card tokenization for autopay); never the access token. */
  MERCADOPAGO_PUBLIC_KEY: optionalString,
  MERCADOPAGO_API_URL: z.string().url().default('https://api.mercadopago.com'),
  PIX_MERCHANT_NAME: z.string().default('COTA VERDE'),
  PIX_MERCHANT_CITY: z.string().default('CURITIBA'),
  /** The sandbox's PIX key; unset, a random EVP made per installation (a key nobody can own). */
  PIX_KEY: optionalString,
  /** How long a PIX code is payable; unset: 30 with the sandbox, 35 with Mercado Pago (which refuses under 30). */
  PIX_EXPIRY_MINUTES: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 60)
      .optional(),
  ),
  WEB_DIST_DIR: z.string().default('web/dist'),
  /** Server rendering of the public pages (src/ssr): on, or off for the client-rendered shell everywhere. */
  WEB_SSR: z.enum(['on', 'off']).default('on'),
  COVERS_PATH: z.string().default('/covers'),
  TRUST_PROXY: bool,
  TRUSTED_PROXY_HOPS: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(0).max(10).optional()),
  /** Set by `npm start` for its own web process; GET /api/health echoes it. */
  COTAVERDE_INSTANCE: optionalString.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9-]{1,64}$/)
      .optional(),
  ),
});

export type Config = {
  env: 'development' | 'test' | 'production';
  isProduction: boolean;
  port: number;
  host: string;
  publicUrl: string;
  databaseUrl: string;
  redisUrl: string;
  dbPoolMax: number;
  logLevel: string;
  appSecret: string;
  corsOrigins: string[];
  adminEmails: string[];
  /**
   * Admins must have two-factor sign-in (TOTP) on to use the admin console and /ops; without it
   * their session reaches only the enrolment (auth/access.ts). ADMIN_MFA_REQUIRED; default: on in
   * production, off in development and test.
   */
  adminMfaRequired: boolean;
  sessionTtlDays: number;
  passwordResetTtlMinutes: number;
  rateLimitDisabled: boolean;
  bodyLimit: string;
  queuePrefix: string;
  smtpUrl?: string;
  mailFrom: string;
  /** SUPPORT_EMAIL: the Reply-To of every mail the store sends. */
  supportEmail: string;
  /** Development mailbox folder (.eml files) used when no SMTP_URL is set. */
  mailDropDir?: string;
  payments: {
    provider: 'sandbox' | 'mercadopago';
    sandboxAutoApproveSeconds: number;
    mercadopago: { accessToken?: string; webhookSecret?: string; apiUrl: string; publicKey?: string };
    pix: { merchantName: string; merchantCity: string; key: string | null; expiryMinutes: number };
  };
  webDistDir: string;
  /** WEB_SSR: the public pages' HTML rendered by the web process (src/ssr). */
  webSsr: boolean;
  coversPath: string;
  /** Trust X-Forwarded-For at all (trustedProxyHops > 0). */
  trustProxy: boolean;
  /**
   * How many proxies in front of the app append to X-Forwarded-For: the client IP is the entry
   * that many places from the right (Koa's maxIpsCount); anything left of it is text the client
   * sent itself and may have forged. 0: the header is ignored, the socket address is the client.
   */
  trustedProxyHops: number;
  /** Partner-store push of coupon balances (RULES C1, C3). */
  coupons: { adapter: 'none' | 'webhook'; webhookUrl?: string; webhookSecret?: string };
  /** Where the e-book PDFs live (absolute). */
  ebookStorageDir: string;
  /** Admin uploads: where covers are kept (served publicly) and the size limits. */
  uploads: { coverStorageDir: string; ebookMaxBytes: number; coverMaxBytes: number };
  /** The public Lotomania results service (RULES W1): base URL, per-request timeout, retries. */
  lottery: { apiUrl: string; timeoutMs: number; retries: number; retryBaseMs: number };
  /**
   * Live boards (server-sent events): open streams allowed per process and per client address in
   * a process, heartbeat period, events kept per draw, and how long a stream's Redis reads may
   * take (a slow Redis is waited for; one that is down still answers 503 at once).
   */
  live: { maxStreams: number; maxStreamsPerClient: number; heartbeatMs: number; streamMaxLen: number; redisTimeoutMs: number };
  /** GET /metrics: the bearer token required in production (404 without it); the worker's own metrics port. */
  metrics: { token?: string; workerPort?: number };
  /** The id `npm start` gave this process (COTAVERDE_INSTANCE), echoed by GET /api/health. */
  instance?: string;
  /** The worker's nightly backup: its folder (null only when disabled in production), retention, or off. */
  backup: { dir: string | null; disabled: boolean; keepDaily: number; keepWeekly: number };
};

/** The address of a mailbox as written in MAIL_FROM ('Nome <a@b>' or 'a@b'). */
function addressOf(mailbox: string): string {
  return (/<([^<>]+)>\s*$/.exec(mailbox)?.[1] ?? mailbox).trim();
}

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Configuração inválida:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const e = parsed.data;
  const problems: string[] = [];
  const isProduction = isProductionEnv(e.NODE_ENV);
  if (!e.DATABASE_URL) problems.push('DATABASE_URL is required');
  if (!e.REDIS_URL) problems.push('REDIS_URL is required');
  if (isProduction) {
    if (e.APP_SECRET === DEV_SECRET) problems.push('APP_SECRET must be set to a secret of at least 32 characters in production');
    if (e.PAYMENT_PROVIDER === 'sandbox') problems.push('PAYMENT_PROVIDER=sandbox is not allowed in production');
    if (e.SANDBOX_AUTO_APPROVE_SECONDS > 0) problems.push('SANDBOX_AUTO_APPROVE_SECONDS is not allowed in production');
    if (!e.PUBLIC_URL) problems.push('PUBLIC_URL is required in production');
    if (!e.SMTP_URL) problems.push('SMTP_URL is required in production (reset links are only ever sent, never stored)');
    if (e.MAIL_DROP_DIR) problems.push('MAIL_DROP_DIR is a development mailbox and is not allowed in production');
    if (!e.SUPPORT_EMAIL) problems.push('SUPPORT_EMAIL is required in production (the Reply-To of every mail: where customers answer)');
  }
  if (env.TRUST_PROXY && !e.TRUST_PROXY && (e.TRUSTED_PROXY_HOPS ?? 0) > 0) {
    problems.push('TRUST_PROXY=false contradicts TRUSTED_PROXY_HOPS > 0: set only TRUSTED_PROXY_HOPS');
  }
  if (e.PAYMENT_PROVIDER === 'mercadopago') {
    if (!e.MERCADOPAGO_ACCESS_TOKEN) problems.push('MERCADOPAGO_ACCESS_TOKEN is required with PAYMENT_PROVIDER=mercadopago');
    if (!e.MERCADOPAGO_WEBHOOK_SECRET) problems.push('MERCADOPAGO_WEBHOOK_SECRET is required with PAYMENT_PROVIDER=mercadopago');
    // Mercado Pago refuses a PIX that expires in less than 30 minutes; one more for the request's time.
    if (e.PIX_EXPIRY_MINUTES != null && e.PIX_EXPIRY_MINUTES < MERCADOPAGO_MIN_PIX_EXPIRY_MINUTES) {
      problems.push(
        `PIX_EXPIRY_MINUTES must be at least ${MERCADOPAGO_MIN_PIX_EXPIRY_MINUTES} with PAYMENT_PROVIDER=mercadopago (Mercado Pago refuses a PIX expiring in under 30 minutes)`,
      );
    }
  }
  const account = loadAccountConfig(env, problems);
  const lottery = loadLotteryConfig(env, problems);
  const live = loadLiveConfig(env, problems);
  const backup = loadBackupConfig(env, isProduction, problems);
  if (problems.length || !account || !lottery || !live || !backup) throw new ConfigError(problems);

  // TRUSTED_PROXY_HOPS wins; else the older TRUST_PROXY switch (true = one hop); else one hop in
  // production (behind the load balancer) and none elsewhere. More hops than there really are
  // would let a client pick its own IP with a forged X-Forwarded-For, so the default is the minimum.
  const trustedHops = e.TRUSTED_PROXY_HOPS ?? (env.TRUST_PROXY ? (e.TRUST_PROXY ? 1 : 0) : isProduction ? 1 : 0);

  return {
    env: isProduction ? 'production' : ((e.NODE_ENV || 'development') as 'development' | 'test'),
    isProduction,
    port: e.PORT,
    host: e.HOST,
    // PUBLIC_URL (required in production); elsewhere the address the web process announced for this database.
    publicUrl: (e.PUBLIC_URL ?? announcedWebUrl(e.DATABASE_URL) ?? `http://localhost:${e.PORT}`).replace(/\/$/, ''),
    databaseUrl: e.DATABASE_URL!,
    redisUrl: e.REDIS_URL!,
    dbPoolMax: e.DB_POOL_MAX,
    logLevel: e.LOG_LEVEL,
    appSecret: e.APP_SECRET,
    corsOrigins: e.CORS_ORIGINS,
    adminEmails: e.ADMIN_EMAILS.map((m) => m.toLowerCase()),
    adminMfaRequired: env.ADMIN_MFA_REQUIRED ? e.ADMIN_MFA_REQUIRED : isProduction,
    sessionTtlDays: e.SESSION_TTL_DAYS,
    passwordResetTtlMinutes: e.PASSWORD_RESET_TTL_MINUTES,
    rateLimitDisabled: e.RATE_LIMIT_DISABLED,
    bodyLimit: e.BODY_LIMIT,
    queuePrefix: e.QUEUE_PREFIX,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    // Outside production, replies go to the sender's own address unless a support address is set.
    supportEmail: e.SUPPORT_EMAIL ?? addressOf(e.MAIL_FROM),
    mailDropDir: e.SMTP_URL ? undefined : e.MAIL_DROP_DIR,
    payments: {
      provider: e.PAYMENT_PROVIDER,
      sandboxAutoApproveSeconds: e.SANDBOX_AUTO_APPROVE_SECONDS,
      mercadopago: {
        accessToken: e.MERCADOPAGO_ACCESS_TOKEN,
        webhookSecret: e.MERCADOPAGO_WEBHOOK_SECRET,
        apiUrl: e.MERCADOPAGO_API_URL.replace(/\/$/, ''),
        publicKey: e.MERCADOPAGO_PUBLIC_KEY,
      },
      pix: {
        merchantName: e.PIX_MERCHANT_NAME,
        merchantCity: e.PIX_MERCHANT_CITY,
        key: e.PIX_KEY ?? null,
        expiryMinutes: e.PIX_EXPIRY_MINUTES ?? (e.PAYMENT_PROVIDER === 'mercadopago' ? 35 : 30),
      },
    },
    webDistDir: e.WEB_DIST_DIR,
    webSsr: e.WEB_SSR === 'on',
    coversPath: e.COVERS_PATH,
    trustProxy: trustedHops > 0,
    trustedProxyHops: trustedHops,
    ...(e.COTAVERDE_INSTANCE ? { instance: e.COTAVERDE_INSTANCE } : {}),
    ...account,
    ...lottery,
    ...live,
    ...backup,
  };
}

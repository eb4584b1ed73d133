import { ConfigError, isProductionEnv, loadConfig } from '../../src/platform/config';
import { withLocalStackDefaults } from '../../src/platform/local-stack';

const URLS = { DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/cotaverde', REDIS_URL: 'redis://127.0.0.1:6379' };
const STRONG_SECRET = 'k7Q2v9Xr4pLm8Zt1Wc6Yb3Nd5Hf0Gj2S';
const PRODUCTION_OK = {
  ...URLS,
  NODE_ENV: 'production',
  APP_SECRET: STRONG_SECRET,
  PUBLIC_URL: 'https://cotaverde.com.br/',
  PAYMENT_PROVIDER: 'mercadopago',
  MERCADOPAGO_ACCESS_TOKEN: 'APP_USR-token-secreto',
  MERCADOPAGO_WEBHOOK_SECRET: 'webhook-secreto',
  SMTP_URL: 'smtps://cotaverde:senha-smtp@smtp.example.com:465',
  SUPPORT_EMAIL: 'atendimento@cotaverde.com.br',
  BACKUP_DIR: '/var/backups/cotaverde',
};

/** The ConfigError thrown by loadConfig (fails the test if none is). */
function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('loadConfig accepted the configuration');
}

describe('development', () => {
  test('accepts the defaults with only the database and Redis URLs', () => {
    const c = loadConfig({ ...URLS });
    expect(c).toMatchObject({
      env: 'development',
      isProduction: false,
      port: 3000,
      publicUrl: 'http://localhost:3000',
      databaseUrl: URLS.DATABASE_URL,
      redisUrl: URLS.REDIS_URL,
      adminEmails: [],
      corsOrigins: [],
      rateLimitDisabled: false,
      trustProxy: false,
      trustedProxyHops: 0,
      queuePrefix: 'cotaverde',
      sessionTtlDays: 30,
      passwordResetTtlMinutes: 60,
      payments: { provider: 'sandbox', sandboxAutoApproveSeconds: 0 },
    });
    expect(c.appSecret.length).toBeGreaterThanOrEqual(32);
  });

  test('accepts the sandbox with auto-approval', () => {
    const c = loadConfig({ ...URLS, PAYMENT_PROVIDER: 'sandbox', SANDBOX_AUTO_APPROVE_SECONDS: '20' });
    expect(c.payments).toMatchObject({ provider: 'sandbox', sandboxAutoApproveSeconds: 20 });
  });

  test('still needs DATABASE_URL and REDIS_URL, and lists both', () => {
    const e = configError({});
    expect(e.problems).toEqual(['DATABASE_URL is required', 'REDIS_URL is required']);
    expect(e.message).toBe('Configuração inválida:\n  - DATABASE_URL is required\n  - REDIS_URL is required');
  });

  test('parses lists and booleans', () => {
    const c = loadConfig({
      ...URLS,
      ADMIN_EMAILS: ' Boss@X.com , ,chefe@example.com',
      CORS_ORIGINS: 'https://a.test,https://b.test',
      RATE_LIMIT_DISABLED: 'yes',
      TRUST_PROXY: '1',
    });
    expect(c.adminEmails).toEqual(['boss@x.com', 'chefe@example.com']);
    expect(c.corsOrigins).toEqual(['https://a.test', 'https://b.test']);
    expect(c.rateLimitDisabled).toBe(true);
    expect(c.trustProxy).toBe(true);
    for (const v of ['true', '1', 'yes']) expect(loadConfig({ ...URLS, RATE_LIMIT_DISABLED: v }).rateLimitDisabled).toBe(true);
    for (const v of ['false', '0', 'no', '']) expect(loadConfig({ ...URLS, RATE_LIMIT_DISABLED: v }).rateLimitDisabled).toBe(false);
  });

  test.each([
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '70000' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['SMTP_URL', { SMTP_URL: 'not a url' }],
    ['TRUSTED_PROXY_HOPS', { TRUSTED_PROXY_HOPS: 'dois' }],
    ['TRUSTED_PROXY_HOPS', { TRUSTED_PROXY_HOPS: '-1' }],
    ['APP_SECRET', { APP_SECRET: 'curto' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'not a url' }],
    ['QUEUE_PREFIX', { QUEUE_PREFIX: 'a:b' }],
    ['PAYMENT_PROVIDER', { PAYMENT_PROVIDER: 'paypal' }],
    ['SANDBOX_AUTO_APPROVE_SECONDS', { SANDBOX_AUTO_APPROVE_SECONDS: '-1' }],
    ['PASSWORD_RESET_TTL_MINUTES', { PASSWORD_RESET_TTL_MINUTES: '1' }],
  ])('an invalid %s is named in the error', (key, patch) => {
    const e = configError({ ...URLS, ...patch });
    expect(e.problems.some((p) => p.startsWith(`${key}:`))).toBe(true);
  });
});

describe('production', () => {
  test('accepts a complete configuration', () => {
    const c = loadConfig(PRODUCTION_OK);
    expect(c).toMatchObject({
      env: 'production',
      isProduction: true,
      appSecret: STRONG_SECRET,
      publicUrl: 'https://cotaverde.com.br',
      payments: {
        provider: 'mercadopago',
        sandboxAutoApproveSeconds: 0,
        mercadopago: { accessToken: 'APP_USR-token-secreto', webhookSecret: 'webhook-secreto' },
      },
    });
    expect(c.trustProxy).toBe(true);
  });

  test('refuses the defaults and lists every problem at once', () => {
    const e = configError({ ...URLS, NODE_ENV: 'production' });
    expect(e.problems).toEqual([
      'APP_SECRET must be set to a secret of at least 32 characters in production',
      'PAYMENT_PROVIDER=sandbox is not allowed in production',
      'PUBLIC_URL is required in production',
      'SMTP_URL is required in production (reset links are only ever sent, never stored)',
      'SUPPORT_EMAIL is required in production (the Reply-To of every mail: where customers answer)',
      'BACKUP_DIR is required in production (or BACKUP_DISABLED=true when the platform backs the database up)',
    ]);
    expect(e.name).toBe('ConfigError');
    expect(e.message).toMatch(/^Configuração inválida:\n {2}- APP_SECRET/);
  });

  test('refuses the default APP_SECRET even when set explicitly', () => {
    const e = configError({ ...PRODUCTION_OK, APP_SECRET: 'dev-only-secret-change-me-0000000000' });
    expect(e.problems).toEqual(['APP_SECRET must be set to a secret of at least 32 characters in production']);
  });

  test('refuses PAYMENT_PROVIDER=sandbox', () => {
    const e = configError({ ...PRODUCTION_OK, PAYMENT_PROVIDER: 'sandbox' });
    expect(e.problems).toEqual(['PAYMENT_PROVIDER=sandbox is not allowed in production']);
  });

  test('refuses SANDBOX_AUTO_APPROVE_SECONDS > 0', () => {
    const e = configError({ ...PRODUCTION_OK, SANDBOX_AUTO_APPROVE_SECONDS: '30' });
    expect(e.problems).toEqual(['SANDBOX_AUTO_APPROVE_SECONDS is not allowed in production']);
    expect(loadConfig({ ...PRODUCTION_OK, SANDBOX_AUTO_APPROVE_SECONDS: '0' }).payments.sandboxAutoApproveSeconds).toBe(0);
  });

  test.each([
    ['DATABASE_URL', 'DATABASE_URL is required'],
    ['REDIS_URL', 'REDIS_URL is required'],
    ['PUBLIC_URL', 'PUBLIC_URL is required in production'],
    ['SMTP_URL', 'SMTP_URL is required in production (reset links are only ever sent, never stored)'],
    ['SUPPORT_EMAIL', 'SUPPORT_EMAIL is required in production (the Reply-To of every mail: where customers answer)'],
  ])('refuses a missing %s', (key, problem) => {
    const env: Record<string, string> = { ...PRODUCTION_OK };
    delete env[key];
    expect(configError(env).problems).toEqual([problem]);
  });

  test('refuses an empty DATABASE_URL or SMTP_URL', () => {
    expect(configError({ ...PRODUCTION_OK, DATABASE_URL: '' }).problems).toEqual(['DATABASE_URL is required']);
    expect(configError({ ...PRODUCTION_OK, SMTP_URL: '' }).problems).toEqual([
      'SMTP_URL is required in production (reset links are only ever sent, never stored)',
    ]);
  });

  test('Mercado Pago needs its access token and webhook secret', () => {
    const env: Record<string, string> = { ...PRODUCTION_OK };
    delete env.MERCADOPAGO_ACCESS_TOKEN;
    delete env.MERCADOPAGO_WEBHOOK_SECRET;
    expect(configError(env).problems).toEqual([
      'MERCADOPAGO_ACCESS_TOKEN is required with PAYMENT_PROVIDER=mercadopago',
      'MERCADOPAGO_WEBHOOK_SECRET is required with PAYMENT_PROVIDER=mercadopago',
    ]);
  });

  test('error messages never echo secret values', () => {
    const e = configError({ ...PRODUCTION_OK, APP_SECRET: 'short-secret-value', SANDBOX_AUTO_APPROVE_SECONDS: '5' });
    expect(e.message).not.toContain('short-secret-value');
    const e3 = configError({ ...PRODUCTION_OK, SMTP_URL: 'smtp-senha-secreta-no-url' });
    expect(e3.problems).toHaveLength(1);
    expect(e3.message).not.toContain('senha-secreta');
    const e2 = configError({ ...PRODUCTION_OK, PAYMENT_PROVIDER: 'sandbox' });
    expect(e2.message).not.toContain(STRONG_SECRET);
    expect(e2.message).not.toContain('APP_USR-token-secreto');
  });
});

describe('backups', () => {
  test('development keeps them under .data/app/backups, 7 daily and 4 weekly', () => {
    const c = loadConfig({ ...URLS });
    expect(c.backup).toEqual({
      dir: expect.stringMatching(/[/\\]\.data[/\\]app[/\\]backups$/),
      disabled: false,
      keepDaily: 7,
      keepWeekly: 4,
    });
  });

  test('production needs BACKUP_DIR unless BACKUP_DISABLED says the platform does it', () => {
    const env: Record<string, string> = { ...PRODUCTION_OK };
    delete env.BACKUP_DIR;
    expect(configError(env).problems).toEqual([
      'BACKUP_DIR is required in production (or BACKUP_DISABLED=true when the platform backs the database up)',
    ]);
    expect(loadConfig({ ...env, BACKUP_DISABLED: 'true' }).backup).toEqual({ dir: null, disabled: true, keepDaily: 7, keepWeekly: 4 });
    expect(loadConfig({ ...PRODUCTION_OK, BACKUP_KEEP_DAILY: '14', BACKUP_KEEP_WEEKLY: '0' }).backup).toEqual({
      dir: '/var/backups/cotaverde',
      disabled: false,
      keepDaily: 14,
      keepWeekly: 0,
    });
  });

  test('refuses a retention that is not a whole number in range', () => {
    expect(configError({ ...URLS, BACKUP_KEEP_DAILY: '0' }).problems).toEqual([expect.stringMatching(/^BACKUP_KEEP_DAILY: /)]);
    expect(configError({ ...URLS, BACKUP_KEEP_WEEKLY: 'muitos' }).problems).toEqual([expect.stringMatching(/^BACKUP_KEEP_WEEKLY: /)]);
  });
});

describe('NODE_ENV fails closed: anything but development/test is production', () => {
  test.each(['staging', 'prod', 'Production', 'PRODUCTION', 'homolog', ' development', 'dev'])(
    '%j gets every production check',
    (nodeEnv) => {
      const e = configError({ ...URLS, NODE_ENV: nodeEnv });
      expect(e.problems).toEqual([
        'APP_SECRET must be set to a secret of at least 32 characters in production',
        'PAYMENT_PROVIDER=sandbox is not allowed in production',
        'PUBLIC_URL is required in production',
        'SMTP_URL is required in production (reset links are only ever sent, never stored)',
        'SUPPORT_EMAIL is required in production (the Reply-To of every mail: where customers answer)',
        'BACKUP_DIR is required in production (or BACKUP_DISABLED=true when the platform backs the database up)',
      ]);
    },
  );

  test('without secrets or without SMTP_URL a non-dev/test NODE_ENV is refused', () => {
    const noSecret: Record<string, string> = { ...PRODUCTION_OK, NODE_ENV: 'staging' };
    delete noSecret.APP_SECRET;
    expect(configError(noSecret).problems).toEqual(['APP_SECRET must be set to a secret of at least 32 characters in production']);
    const noSmtp: Record<string, string> = { ...PRODUCTION_OK, NODE_ENV: 'staging' };
    delete noSmtp.SMTP_URL;
    expect(configError(noSmtp).problems).toEqual(['SMTP_URL is required in production (reset links are only ever sent, never stored)']);
  });

  test('a complete configuration under another name runs as production', () => {
    const c = loadConfig({ ...PRODUCTION_OK, NODE_ENV: 'staging' });
    expect(c).toMatchObject({ env: 'production', isProduction: true, trustProxy: true, trustedProxyHops: 1 });
  });

  test('development and test (and unset) are the only non-production values', () => {
    expect(loadConfig({ ...URLS, NODE_ENV: 'development' })).toMatchObject({ env: 'development', isProduction: false });
    expect(loadConfig({ ...URLS, NODE_ENV: 'test' })).toMatchObject({ env: 'test', isProduction: false });
    expect(loadConfig({ ...URLS })).toMatchObject({ env: 'development', isProduction: false });
    expect(loadConfig({ ...URLS, NODE_ENV: '' })).toMatchObject({ env: 'development', isProduction: false });
  });

  test('isProductionEnv', () => {
    for (const v of ['production', 'staging', 'Test', 'DEVELOPMENT']) expect(isProductionEnv(v)).toBe(true);
    for (const v of ['development', 'test', '', undefined]) expect(isProductionEnv(v)).toBe(false);
  });

  test('the CLI/stack fallback to the local PostgreSQL and Redis is never used outside development/test', () => {
    expect(withLocalStackDefaults({ NODE_ENV: 'staging' })).toEqual({ NODE_ENV: 'staging' });
    expect(withLocalStackDefaults({ NODE_ENV: 'development' }).DATABASE_URL).toMatch(/^postgres:\/\/.*127\.0\.0\.1/);
  });
});

describe('trusted proxy hops (TRUSTED_PROXY_HOPS, TRUST_PROXY)', () => {
  test('defaults to one trusted hop in production and none elsewhere', () => {
    expect(loadConfig(PRODUCTION_OK)).toMatchObject({ trustProxy: true, trustedProxyHops: 1 });
    expect(loadConfig(URLS)).toMatchObject({ trustProxy: false, trustedProxyHops: 0 });
  });

  test('TRUSTED_PROXY_HOPS sets the count; 0 ignores X-Forwarded-For', () => {
    expect(loadConfig({ ...PRODUCTION_OK, TRUSTED_PROXY_HOPS: '2' })).toMatchObject({ trustProxy: true, trustedProxyHops: 2 });
    expect(loadConfig({ ...PRODUCTION_OK, TRUSTED_PROXY_HOPS: '0' })).toMatchObject({ trustProxy: false, trustedProxyHops: 0 });
    expect(loadConfig({ ...URLS, TRUSTED_PROXY_HOPS: '1' })).toMatchObject({ trustProxy: true, trustedProxyHops: 1 });
    expect(loadConfig({ ...PRODUCTION_OK, TRUSTED_PROXY_HOPS: '' })).toMatchObject({ trustedProxyHops: 1 });
  });

  test('the older TRUST_PROXY switch still works: true = one hop, false = none, also in production', () => {
    expect(loadConfig({ ...PRODUCTION_OK, TRUST_PROXY: 'false' })).toMatchObject({ trustProxy: false, trustedProxyHops: 0 });
    expect(loadConfig({ ...PRODUCTION_OK, TRUST_PROXY: 'true' })).toMatchObject({ trustProxy: true, trustedProxyHops: 1 });
    expect(loadConfig({ ...URLS, TRUST_PROXY: 'true' })).toMatchObject({ trustProxy: true, trustedProxyHops: 1 });
    expect(loadConfig({ ...URLS, TRUST_PROXY: 'true', TRUSTED_PROXY_HOPS: '3' }).trustedProxyHops).toBe(3);
  });

  test('TRUST_PROXY=false with hops > 0 is a contradiction, refused', () => {
    expect(configError({ ...PRODUCTION_OK, TRUST_PROXY: 'false', TRUSTED_PROXY_HOPS: '1' }).problems).toEqual([
      'TRUST_PROXY=false contradicts TRUSTED_PROXY_HOPS > 0: set only TRUSTED_PROXY_HOPS',
    ]);
  });
});

describe('ADMIN_MFA_REQUIRED: admins need two-factor sign-in for the console', () => {
  test('default: on in production (any name of it), off in development and test', () => {
    expect(loadConfig({ ...PRODUCTION_OK }).adminMfaRequired).toBe(true);
    expect(loadConfig({ ...PRODUCTION_OK, NODE_ENV: 'staging' }).adminMfaRequired).toBe(true);
    expect(loadConfig({ ...URLS }).adminMfaRequired).toBe(false);
    expect(loadConfig({ ...URLS, NODE_ENV: 'development' }).adminMfaRequired).toBe(false);
    expect(loadConfig({ ...URLS, NODE_ENV: 'test' }).adminMfaRequired).toBe(false);
  });

  test.each([
    ['true', true],
    ['1', true],
    ['yes', true],
    ['false', false],
    ['0', false],
    ['no', false],
  ])('set to %s → %s, whatever the environment', (value, want) => {
    expect(loadConfig({ ...PRODUCTION_OK, ADMIN_MFA_REQUIRED: value }).adminMfaRequired).toBe(want);
    expect(loadConfig({ ...URLS, ADMIN_MFA_REQUIRED: value }).adminMfaRequired).toBe(want);
  });

  test('an empty value counts as unset', () => {
    expect(loadConfig({ ...PRODUCTION_OK, ADMIN_MFA_REQUIRED: '' }).adminMfaRequired).toBe(true);
    expect(loadConfig({ ...URLS, ADMIN_MFA_REQUIRED: '' }).adminMfaRequired).toBe(false);
  });
});

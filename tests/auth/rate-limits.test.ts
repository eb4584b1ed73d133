import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { createRateLimits, LIMITS } from '../../src/platform/rate-limit';
import { isDomainError } from '../../src/platform/errors';
import argon2 from 'argon2';
import { fakeSmtp, type FakeSmtp } from '../helpers/smtp';
import { freshIp, registration, resetTokenOf, uniqueEmail } from './fixtures';

let t: TestContext;
let smtp: FakeSmtp;
beforeAll(async () => {
  smtp = await fakeSmtp();
  t = await createTestContext({ env: { SMTP_URL: smtp.url } });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const RATE_LIMITED = {
  error: 'rate_limited',
  message: 'Muitas tentativas. Aguarde um pouco e tente novamente.',
  retry_after: expect.any(Number),
};

function expectRateLimited(r: { status: number; body: any; headers: Headers }, maxSeconds: number) {
  expect(r.status).toBe(429);
  expect(r.body).toEqual(RATE_LIMITED);
  const retryAfter = Number(r.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(maxSeconds);
  expect(r.body.retry_after).toBe(retryAfter);
}

const login = (email: string, password: string, ip: { 'x-forwarded-for': string }) =>
  t.api('POST', '/api/auth/login', { body: { email, password }, headers: ip });

describe('login: failures count per (e-mail, IP) and per IP, never per e-mail alone', () => {
  test('per (e-mail, IP): after 5 failures that address is blocked on that account, even with the right password', async () => {
    const u = await createUser(t);
    const ip = freshIp();
    for (let i = 0; i < LIMITS.loginAccount.points; i++) expect((await login(u.email, 'senha-errada', ip)).status).toBe(401);
    expectRateLimited(await login(u.email.toUpperCase(), u.password, ip), 15 * 60);
    // the same address can still sign in to another account
    const other = await createUser(t);
    expect((await login(other.email, other.password, ip)).status).toBe(200);
    // and the owner signs in from anywhere else
    expect((await login(u.email, u.password, freshIp())).status).toBe(200);
  });

  test('an attacker rotating addresses never locks the owner out: a clean address still signs in', async () => {
    const u = await createUser(t);
    const attackerIps = Array.from({ length: 8 }, () => freshIp());
    for (const ip of attackerIps) {
      for (let i = 0; i < LIMITS.loginAccount.points; i++) expect((await login(u.email, `chute-${i}-errado`, ip)).status).toBe(401);
      // each attacking address is stopped on this account
      expectRateLimited(await login(u.email, 'mais-um-chute', ip), 15 * 60);
    }
    // 40 failures on the account in 15 minutes, and the owner, from an address with no failures, signs in
    const owner = await login(u.email, u.password, freshIp());
    expect(owner.status).toBe(200);
    expect(owner.body.user.email).toBe(u.email);
    expect((await t.api('GET', '/api/me', { token: owner.body.token })).status).toBe(200);
  });

  test('per IP: 20 failures over many accounts block that address, other addresses unaffected', async () => {
    const ip = freshIp();
    for (let i = 0; i < LIMITS.login.points; i++) expect((await login(uniqueEmail('ninguem'), 'senha-errada', ip)).status).toBe(401);
    const u = await createUser(t);
    // even with the right password
    expectRateLimited(await login(u.email, u.password, ip), 15 * 60);
    expect((await login(u.email, u.password, freshIp())).status).toBe(200);
  });

  test('successes do not count: a right password gives its point back and clears the (e-mail, IP) counter', async () => {
    const ip = freshIp();
    const u = await createUser(t);
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < LIMITS.loginAccount.points - 1; i++) expect((await login(u.email, 'senha-errada', ip)).status).toBe(401);
      expect((await login(u.email, u.password, ip)).status).toBe(200);
    }
    // 12 failures so far from this address; 8 more fill its per-IP allowance, the successes took none
    for (let i = 0; i < LIMITS.login.points - 12; i++) expect((await login(uniqueEmail('ninguem'), 'senha-errada', ip)).status).toBe(401);
    expectRateLimited(await login(uniqueEmail('ninguem'), 'senha-errada', ip), 15 * 60);
  });

  test('parallel guesses cannot slip past the limit', async () => {
    const u = await createUser(t);
    const ip = freshIp();
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => login(u.email, `paralelo-${i}-errado`, ip)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(LIMITS.loginAccount.points);
    expect(statuses.filter((s) => s === 429)).toHaveLength(12 - LIMITS.loginAccount.points);
  });
});

describe('register: 5 per hour per IP', () => {
  test('the 6th attempt from one address → 429, whatever the body; other addresses unaffected', async () => {
    const ip = freshIp();
    expect((await t.api('POST', '/api/auth/register', { body: registration(), headers: ip })).status).toBe(201);
    for (let i = 0; i < 4; i++) {
      expect((await t.api('POST', '/api/auth/register', { body: { name: '' }, headers: ip })).status).toBe(400);
    }
    const blocked = await t.api('POST', '/api/auth/register', { body: registration(), headers: ip });
    expectRateLimited(blocked, 60 * 60);
    const elsewhere = await t.api('POST', '/api/auth/register', { body: registration(), headers: freshIp() });
    expect(elsewhere.status).toBe(201);
  });
});

describe('password reset: 5 per hour per IP', () => {
  test('the 6th request from one address → 429; other addresses unaffected', async () => {
    const ip = freshIp();
    const u = await createUser(t);
    for (let i = 0; i < 5; i++) {
      expect(
        (await t.api('POST', '/api/auth/reset-password', { body: { email: i === 0 ? u.email : uniqueEmail() }, headers: ip })).status,
      ).toBe(202);
    }
    const blocked = await t.api('POST', '/api/auth/reset-password', { body: { email: u.email }, headers: ip });
    expectRateLimited(blocked, 60 * 60);
    // the blocked request wrote no mail
    expect(await t.services.db('mail_outbox').where({ to_address: u.email })).toHaveLength(1);
    const elsewhere = await t.api('POST', '/api/auth/reset-password', { body: { email: u.email }, headers: freshIp() });
    expect(elsewhere.status).toBe(202);
  });
});

describe('password reset: 3 per hour per e-mail, whatever the address', () => {
  const requestReset = (email: string) => t.api('POST', '/api/auth/reset-password', { body: { email }, headers: freshIp() });

  test('the 4th request for one account from fresh addresses → 429; other accounts unaffected', async () => {
    const u = await createUser(t);
    for (let i = 0; i < LIMITS.resetEmail.points; i++)
      expect((await requestReset(i === 1 ? u.email.toUpperCase() : u.email)).status).toBe(202);
    expectRateLimited(await requestReset(u.email), 60 * 60);
    expect(await t.services.db('mail_outbox').where({ to_address: u.email })).toHaveLength(LIMITS.resetEmail.points);
    const other = await createUser(t);
    expect((await requestReset(other.email)).status).toBe(202);
  });

  test('an unknown address gets exactly the same answers (the limit tells nothing about accounts)', async () => {
    const u = await createUser(t);
    const unknown = uniqueEmail('ninguem');
    for (let i = 0; i <= LIMITS.resetEmail.points; i++) {
      const known = await requestReset(u.email);
      const stranger = await requestReset(unknown);
      expect(stranger.status).toBe(known.status);
      expect(stranger.body).toEqual(known.body);
    }
  });
});

describe('password reset confirmation: 10 per 15 minutes per IP', () => {
  const confirm = (body: unknown, ip: { 'x-forwarded-for': string }) =>
    t.api('POST', '/api/auth/reset-password/confirm', { body, headers: ip });

  test('the 11th attempt from one address → 429 even with a good link; the link still works from elsewhere', async () => {
    const u = await createUser(t);
    const token = await resetTokenOf(t, smtp, u.email);
    const ip = freshIp();
    for (let i = 0; i < LIMITS.resetConfirm.points; i++) {
      const r = await confirm({ token: `${'x'.repeat(40)}${i}`, password: 'nova-senha-123' }, ip);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid_token');
    }
    expectRateLimited(await confirm({ token, password: 'nova-senha-123' }, ip), 15 * 60);
    expect((await login(u.email, u.password, freshIp())).status).toBe(200);
    expect((await confirm({ token, password: 'nova-senha-123' }, freshIp())).status).toBe(200);
    expect((await login(u.email, 'nova-senha-123', freshIp())).status).toBe(200);
  });

  test('malformed bodies count too', async () => {
    const ip = freshIp();
    for (let i = 0; i < LIMITS.resetConfirm.points; i++) expect((await confirm({}, ip)).status).toBe(400);
    expectRateLimited(await confirm({}, ip), 15 * 60);
  });

  test('an unknown, used or expired token is refused before any password is hashed', async () => {
    const u = await createUser(t);
    const token = await resetTokenOf(t, smtp, u.email);
    await t.services
      .db('password_resets')
      .where({ user_id: u.user.id })
      .update({ expires_at: t.services.db.raw("now() - interval '1 second'") });
    const spy = jest.spyOn(argon2, 'hash');
    try {
      for (const tk of ['Z'.repeat(43), token]) {
        const r = await confirm({ token: tk, password: 'nova-senha-123' }, freshIp());
        expect(r.status).toBe(400);
        expect(r.body).toEqual({ error: 'invalid_token', message: 'Link inválido ou expirado.' });
      }
      expect(spy).not.toHaveBeenCalled();
      // a live link does hash the new password
      const fresh = await resetTokenOf(t, smtp, u.email);
      expect((await confirm({ token: fresh, password: 'nova-senha-123' }, freshIp())).status).toBe(200);
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('createRateLimits', () => {
  test('hit consumes points, throws rate_limited with retry_after, reset clears', async () => {
    const rl = createRateLimits(t.services.redis, `${t.services.config.queuePrefix}-unit`);
    const key = 'ip:192.0.2.1';
    for (let i = 0; i < LIMITS.register.points; i++) await rl.hit('register', key);
    const err = await rl.hit('register', key).catch((e) => e);
    expect(isDomainError(err)).toBe(true);
    expect(err).toMatchObject({ kind: 'rate_limited', code: 'rate_limited' });
    expect(err.extra.retry_after).toBeGreaterThan(0);
    expect(err.extra.retry_after).toBeLessThanOrEqual(LIMITS.register.duration);
    await rl.reset('register', key);
    await expect(rl.hit('register', key)).resolves.toBeUndefined();
  });

  test('names and keys are independent', async () => {
    const rl = createRateLimits(t.services.redis, `${t.services.config.queuePrefix}-unit2`);
    for (let i = 0; i < LIMITS.reset.points; i++) await rl.hit('reset', 'k1');
    await expect(rl.hit('reset', 'k1')).rejects.toMatchObject({ code: 'rate_limited' });
    await expect(rl.hit('reset', 'k2')).resolves.toBeUndefined();
    await expect(rl.hit('register', 'k1')).resolves.toBeUndefined();
  });

  test('refund gives one point back', async () => {
    const rl = createRateLimits(t.services.redis, `${t.services.config.queuePrefix}-unit4`);
    for (let i = 0; i < LIMITS.resetEmail.points; i++) await rl.hit('resetEmail', 'k');
    await rl.refund('resetEmail', 'k');
    await expect(rl.hit('resetEmail', 'k')).resolves.toBeUndefined();
    await expect(rl.hit('resetEmail', 'k')).rejects.toMatchObject({ code: 'rate_limited' });
  });

  test('disabled limits never throw', async () => {
    const rl = createRateLimits(t.services.redis, `${t.services.config.queuePrefix}-unit3`, true);
    for (let i = 0; i < LIMITS.reset.points + 3; i++) await expect(rl.hit('reset', 'k')).resolves.toBeUndefined();
  });
});

describe('production behind one load balancer (TRUSTED_PROXY_HOPS default 1)', () => {
  let prod: TestContext;
  beforeAll(async () => {
    prod = await createTestContext({
      env: {
        NODE_ENV: 'production',
        BACKUP_DISABLED: 'true',
        TRUST_PROXY: '',
        APP_SECRET: 'k7Q2v9Xr4pLm8Zt1Wc6Yb3Nd5Hf0Gj2S-prod-test',
        PUBLIC_URL: 'https://cotaverde.test',
        PAYMENT_PROVIDER: 'mercadopago',
        MERCADOPAGO_ACCESS_TOKEN: 'APP_USR-test',
        MERCADOPAGO_WEBHOOK_SECRET: 'webhook-test',
        MERCADOPAGO_API_URL: 'http://127.0.0.1:9',
        SMTP_URL: 'smtp://127.0.0.1:9',
        SUPPORT_EMAIL: 'suporte@cotaverde.test',
      },
    });
  });
  afterAll(() => prod.close());

  const registerVia = (xff: string) => prod.api('POST', '/api/auth/register', { body: { name: '' }, headers: { 'x-forwarded-for': xff } });

  test('the app runs as production with one trusted hop', () => {
    expect(prod.services.config).toMatchObject({ env: 'production', isProduction: true, trustProxy: true, trustedProxyHops: 1 });
  });

  test('a forged leftmost X-Forwarded-For does not buy fresh limits: the hop the balancer appended is the client', async () => {
    const client = '203.0.113.7';
    for (let i = 0; i < LIMITS.register.points; i++) {
      // the client sends its own X-Forwarded-For; the balancer appends the address it saw
      expect((await registerVia(`198.51.100.${i + 1}, ${client}`)).status).toBe(400);
    }
    expectRateLimited(await registerVia(`198.51.100.200, ${client}`), 60 * 60);
    expectRateLimited(await registerVia(`1.1.1.1, 8.8.8.8, 9.9.9.9, ${client}`), 60 * 60);
    expectRateLimited(await registerVia(client), 60 * 60);
    // another real client (another rightmost entry) is unaffected, whatever it forges
    expect((await registerVia(`${client}, 203.0.113.8`)).status).toBe(400);
  });

  test('login: forged entries left of the real hop all count against the one real address', async () => {
    const client = '203.0.113.50';
    const u = await createUser(prod);
    for (let i = 0; i < LIMITS.loginAccount.points; i++) {
      const r = await prod.api('POST', '/api/auth/login', {
        body: { email: u.email, password: 'senha-errada' },
        headers: { 'x-forwarded-for': `10.0.${i}.1, ${client}` },
      });
      expect(r.status).toBe(401);
    }
    const blocked = await prod.api('POST', '/api/auth/login', {
      body: { email: u.email, password: u.password },
      headers: { 'x-forwarded-for': `10.0.99.1, ${client}` },
    });
    expectRateLimited(blocked, 15 * 60);
    const owner = await prod.api('POST', '/api/auth/login', {
      body: { email: u.email, password: u.password },
      headers: { 'x-forwarded-for': '203.0.113.51' },
    });
    expect(owner.status).toBe(200);
  });
});

describe('two trusted hops (TRUSTED_PROXY_HOPS=2)', () => {
  let t2: TestContext;
  beforeAll(async () => {
    t2 = await createTestContext({ env: { TRUST_PROXY: '', TRUSTED_PROXY_HOPS: '2' } });
  });
  afterAll(() => t2.close());

  test('the client is the second entry from the right; entries further left are ignored', async () => {
    const registerVia = (xff: string) => t2.api('POST', '/api/auth/register', { body: { name: '' }, headers: { 'x-forwarded-for': xff } });
    for (let i = 0; i < LIMITS.register.points; i++)
      expect((await registerVia(`198.51.100.${i + 1}, 203.0.113.9, 10.0.0.${i + 1}`)).status).toBe(400);
    expectRateLimited(await registerVia('6.6.6.6, 203.0.113.9, 10.0.0.77'), 60 * 60);
    expect((await registerVia('203.0.113.9, 203.0.113.10, 10.0.0.1')).status).toBe(400);
  });
});

describe('without TRUST_PROXY', () => {
  let t2: TestContext;
  beforeAll(async () => {
    t2 = await createTestContext({ env: { TRUST_PROXY: 'false' } });
  });
  afterAll(() => t2.close());

  test('a spoofed X-Forwarded-For does not dodge the per-IP limit', async () => {
    for (let i = 0; i < LIMITS.login.points; i++) {
      const r = await t2.api('POST', '/api/auth/login', {
        body: { email: uniqueEmail('spoof'), password: 'senha-errada' },
        headers: freshIp(),
      });
      expect(r.status).toBe(401);
    }
    const r = await t2.api('POST', '/api/auth/login', {
      body: { email: uniqueEmail('spoof'), password: 'senha-errada' },
      headers: freshIp(),
    });
    expectRateLimited(r, 15 * 60);
  });
});

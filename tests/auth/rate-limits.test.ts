import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { createRateLimits, LIMITS } from '../../src/platform/rate-limit';
import { isDomainError } from '../../src/platform/errors';
import { freshIp, registration, uniqueEmail } from './fixtures';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

const RATE_LIMITED = { error: 'rate_limited', message: 'Muitas tentativas. Aguarde um pouco e tente novamente.', retry_after: expect.any(Number) };

function expectRateLimited(r: { status: number; body: any; headers: Headers }, maxSeconds: number) {
  expect(r.status).toBe(429);
  expect(r.body).toEqual(RATE_LIMITED);
  const retryAfter = Number(r.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(maxSeconds);
  expect(r.body.retry_after).toBe(retryAfter);
}

describe('login: 10 attempts per 15 minutes', () => {
  test('per IP: the 11th attempt from one address → 429, other addresses unaffected', async () => {
    const ip = freshIp();
    for (let i = 0; i < 10; i++) {
      const r = await t.api('POST', '/api/auth/login', { body: { email: uniqueEmail('ninguem'), password: 'senha-errada' }, headers: ip });
      expect(r.status).toBe(401);
    }
    const u = await createUser(t);
    // even with the right password
    const blocked = await t.api('POST', '/api/auth/login', { body: { email: u.email, password: u.password }, headers: ip });
    expectRateLimited(blocked, 15 * 60);
    const elsewhere = await t.api('POST', '/api/auth/login', { body: { email: u.email, password: u.password }, headers: freshIp() });
    expect(elsewhere.status).toBe(200);
  });

  test('per account: the 11th attempt on one email from many addresses → 429, other accounts unaffected', async () => {
    const u = await createUser(t);
    const other = await createUser(t);
    for (let i = 0; i < 10; i++) {
      const r = await t.api('POST', '/api/auth/login', { body: { email: u.email, password: 'senha-errada' }, headers: freshIp() });
      expect(r.status).toBe(401);
    }
    const blocked = await t.api('POST', '/api/auth/login', { body: { email: u.email.toUpperCase(), password: u.password }, headers: freshIp() });
    expectRateLimited(blocked, 15 * 60);
    const ok = await t.api('POST', '/api/auth/login', { body: { email: other.email, password: other.password }, headers: freshIp() });
    expect(ok.status).toBe(200);
  });

  test('a successful login clears the account counter', async () => {
    const u = await createUser(t);
    for (let i = 0; i < 9; i++) {
      expect((await t.api('POST', '/api/auth/login', { body: { email: u.email, password: 'senha-errada' }, headers: freshIp() })).status).toBe(401);
    }
    expect((await t.api('POST', '/api/auth/login', { body: { email: u.email, password: u.password }, headers: freshIp() })).status).toBe(200);
    for (let i = 0; i < 9; i++) {
      expect((await t.api('POST', '/api/auth/login', { body: { email: u.email, password: 'senha-errada' }, headers: freshIp() })).status).toBe(401);
    }
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
      expect((await t.api('POST', '/api/auth/reset-password', { body: { email: i === 0 ? u.email : uniqueEmail() }, headers: ip })).status).toBe(202);
    }
    const blocked = await t.api('POST', '/api/auth/reset-password', { body: { email: u.email }, headers: ip });
    expectRateLimited(blocked, 60 * 60);
    // the blocked request wrote no mail
    expect(await t.services.db('mail_outbox').where({ to_address: u.email })).toHaveLength(1);
    const elsewhere = await t.api('POST', '/api/auth/reset-password', { body: { email: u.email }, headers: freshIp() });
    expect(elsewhere.status).toBe(202);
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

  test('disabled limits never throw', async () => {
    const rl = createRateLimits(t.services.redis, `${t.services.config.queuePrefix}-unit3`, true);
    for (let i = 0; i < LIMITS.reset.points + 3; i++) await expect(rl.hit('reset', 'k')).resolves.toBeUndefined();
  });
});

describe('without TRUST_PROXY', () => {
  let t2: TestContext;
  beforeAll(async () => {
    t2 = await createTestContext({ env: { TRUST_PROXY: 'false' } });
  });
  afterAll(() => t2.close());

  test('a spoofed X-Forwarded-For does not dodge the per-IP limit', async () => {
    for (let i = 0; i < 10; i++) {
      const r = await t2.api('POST', '/api/auth/login', { body: { email: uniqueEmail('spoof'), password: 'senha-errada' }, headers: freshIp() });
      expect(r.status).toBe(401);
    }
    const r = await t2.api('POST', '/api/auth/login', { body: { email: uniqueEmail('spoof'), password: 'senha-errada' }, headers: freshIp() });
    expectRateLimited(r, 15 * 60);
  });
});

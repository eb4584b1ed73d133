import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { createLogger } from '../../src/platform/logger';
import { ACCOUNT_EXISTS } from '../../src/auth/service';
import { freshIp, publicUser, registration, resetTokenFrom } from './fixtures';
import { fakeSmtp, type FakeSmtp } from '../helpers/smtp';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

const login = (body: unknown, headers: Record<string, string> = freshIp()) => t.api('POST', '/api/auth/login', { body, headers });

const INVALID = { error: 'invalid_credentials', message: 'E-mail ou senha incorretos.' };
const UNAUTHENTICATED = { error: 'unauthenticated', message: 'Faça login para continuar.' };

describe('POST /api/auth/login', () => {
  test('answers {token, user} without the password hash', async () => {
    const u = await createUser(t, { name: 'Ana Souza' });
    const r = await login({ email: u.email, password: u.password });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['token', 'user']);
    expect(r.body.token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(r.body.user).toEqual(publicUser({ id: u.user.id, name: 'Ana Souza', email: u.email, phone: '41999998888', cpf: u.user.cpf }));
    expect(r.text).not.toContain('password');
    expect(r.text).not.toContain('$argon2');

    // the token is stored hashed, never in clear
    const sessions = await t.services.db('auth_tokens').where({ user_id: u.user.id });
    expect(sessions.length).toBeGreaterThanOrEqual(2); // createUser's + this one
    expect(sessions.map((s) => s.token_hash)).not.toContain(r.body.token);

    const me = await t.api('GET', '/api/me', { token: r.body.token });
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(u.user.id);
  });

  test('the email is case-insensitive and trimmed', async () => {
    const u = await createUser(t);
    const r = await login({ email: `  ${u.email.toUpperCase()} `, password: u.password });
    expect(r.status).toBe(200);
    expect(r.body.user.id).toBe(u.user.id);
  });

  test('wrong password and unknown email answer the same 401 (no account enumeration)', async () => {
    const u = await createUser(t);
    const wrong = await login({ email: u.email, password: 'not-the-password' });
    const unknown = await login({ email: 'nobody-here@example.com', password: 'whatever-123' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(INVALID);
    expect(unknown.body).toEqual(INVALID);
    expect(wrong.text).toBe(unknown.text);
  });

  test('an account without a password cannot log in', async () => {
    const u = await createUser(t);
    await t.services.db('users').where({ id: u.user.id }).update({ password_hash: null });
    const r = await login({ email: u.email, password: u.password });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(INVALID);
  });

  test.each([
    [{ email: 'not-an-email', password: 'abcdef' }, 'Informe um e-mail válido.', 'email'],
    [{ email: '', password: 'abcdef' }, 'Informe um e-mail válido.', 'email'],
    [{ password: 'abcdef' }, 'Informe um e-mail válido.', 'email'],
    [{ email: 12, password: 'abcdef' }, 'Informe um e-mail válido.', 'email'],
    [{ email: 'ana@example.com', password: '12345' }, 'A senha deve ter pelo menos 6 caracteres.', 'password'],
    [{ email: 'ana@example.com', password: '' }, 'A senha deve ter pelo menos 6 caracteres.', 'password'],
    [{ email: 'ana@example.com' }, 'A senha deve ter pelo menos 6 caracteres.', 'password'],
    [{ email: 'ana@example.com', password: 123456 }, 'A senha deve ter pelo menos 6 caracteres.', 'password'],
    [{ email: 'ana@example.com', password: { $ne: '' } }, 'A senha deve ter pelo menos 6 caracteres.', 'password'],
    [{ email: 'ana@example.com', password: 'x'.repeat(201) }, 'Senha muito longa.', 'password'],
  ])('%j → 400 %s', async (body, message, field) => {
    const r = await login(body);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'validation_error', message, details: expect.arrayContaining([expect.objectContaining({ path: field, message })]) });
  });

  test('an empty body lists both fields', async () => {
    const r = await login({});
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('Informe um e-mail válido.');
    expect(r.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['email', 'password']);
  });

  test('a non-object body answers 400', async () => {
    const r = await t.api('POST', '/api/auth/login', { rawBody: '["a@b.co","abcdef"]', headers: freshIp() });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'validation_error', message: 'Envie os dados como um objeto JSON.' });
  });
});

describe('GET /api/me', () => {
  test('with a token answers {user}, not cacheable', async () => {
    const u = await createUser(t);
    const r = await t.api('GET', '/api/me', { token: u.token });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['user']);
    expect(r.body.user).toMatchObject({ id: u.user.id, email: u.email, is_admin: false, role: 'customer' });
    expect(r.body.user).not.toHaveProperty('password_hash');
    expect(r.text).not.toContain('argon2');
    expect(r.headers.get('cache-control')).toBe('no-store');
  });

  test('anonymous → 401', async () => {
    const r = await t.api('GET', '/api/me');
    expect(r.status).toBe(401);
    expect(r.body).toEqual(UNAUTHENTICATED);
  });

  test.each([
    ['a garbage token', { authorization: 'Bearer garbage' }],
    ['a well-formed unknown token', { authorization: `Bearer ${'A'.repeat(43)}` }],
    ['an oversized token', { authorization: `Bearer ${'x'.repeat(5000)}` }],
    ['an empty bearer', { authorization: 'Bearer ' }],
    ['another scheme', { authorization: 'Basic YWRtaW46YWRtaW4=' }],
  ])('%s → 401', async (_why, headers) => {
    const r = await t.api('GET', '/api/me', { headers });
    expect(r.status).toBe(401);
    expect(r.body).toEqual(UNAUTHENTICATED);
  });

  test('an expired session → 401', async () => {
    const u = await createUser(t);
    await t.services.db('auth_tokens').where({ user_id: u.user.id }).update({ expires_at: t.services.db.raw("now() - interval '1 second'") });
    const r = await t.api('GET', '/api/me', { token: u.token });
    expect(r.status).toBe(401);
  });

  test("a deleted user's token → 401", async () => {
    const u = await createUser(t);
    await t.services.db('users').where({ id: u.user.id }).delete();
    const r = await t.api('GET', '/api/me', { token: u.token });
    expect(r.status).toBe(401);
  });
});

describe('POST /api/auth/logout', () => {
  test('answers 204, then that token no longer works; other sessions are untouched', async () => {
    const a = await createUser(t);
    const b = await createUser(t);
    const second = await login({ email: a.email, password: a.password });
    expect(second.status).toBe(200);

    const r = await t.api('POST', '/api/auth/logout', { token: a.token });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');

    expect((await t.api('GET', '/api/me', { token: a.token })).status).toBe(401);
    expect((await t.api('POST', '/api/auth/logout', { token: a.token })).status).toBe(401);
    // another user's token still works
    expect((await t.api('GET', '/api/me', { token: b.token })).status).toBe(200);
    // and so does the same user's other session
    expect((await t.api('GET', '/api/me', { token: second.body.token })).status).toBe(200);

    const revoked = await t.services.db('auth_tokens').where({ user_id: a.user.id }).whereNotNull('revoked_at');
    expect(revoked).toHaveLength(1);
  });

  test('anonymous logout → 401', async () => {
    const r = await t.api('POST', '/api/auth/logout');
    expect(r.status).toBe(401);
    expect(r.body).toEqual(UNAUTHENTICATED);
  });

  test('logout with a garbage token → 401', async () => {
    const r = await t.api('POST', '/api/auth/logout', { token: 'garbage' });
    expect(r.status).toBe(401);
  });
});

describe('admin detection (from the database, on every request)', () => {
  const meOf = async (token: string) => (await t.api('GET', '/api/me', { token })).body.user;

  test('is_admin true → admin', async () => {
    const u = await createUser(t);
    await t.services.db('users').where({ id: u.user.id }).update({ is_admin: true });
    expect(await meOf(u.token)).toMatchObject({ is_admin: true, role: 'admin' });
  });

  test("role 'admin' → admin", async () => {
    const u = await createUser(t);
    await t.services.db('users').where({ id: u.user.id }).update({ role: 'admin' });
    expect(await meOf(u.token)).toMatchObject({ is_admin: true, role: 'admin' });
  });

  test('login of an admin answers is_admin true', async () => {
    const u = await createUser(t, { admin: true });
    const r = await login({ email: u.email, password: u.password });
    expect(r.body.user).toMatchObject({ is_admin: true, role: 'admin' });
  });

  test('revoking is_admin takes effect on the next request with the same token', async () => {
    const u = await createUser(t);
    await t.services.db('users').where({ id: u.user.id }).update({ is_admin: true });
    expect(await meOf(u.token)).toMatchObject({ is_admin: true });
    expect((await t.services.auth.authenticate(u.token))?.isAdmin).toBe(true);

    await t.services.db('users').where({ id: u.user.id }).update({ is_admin: false });
    // the session user that guards admin routes is read fresh (DESIGN §9), even when the
    // write bypassed the services (nothing told the session cache)
    expect((await t.services.auth.authenticate(u.token, { fresh: true }))?.isAdmin).toBe(false);
    // the session cache keeps the other routes' copy until a service reports the change, as every
    // service writing users does (admin-users.ts, auth/service.ts)
    expect((await t.services.auth.authenticate(u.token))?.isAdmin).toBe(true);
    await t.services.sessions.userChanged(u.user.id);
    expect(await meOf(u.token)).toMatchObject({ is_admin: false, role: 'customer' });
    expect((await t.services.auth.authenticate(u.token))?.isAdmin).toBe(false);
  });

  test('a customer is not admin', async () => {
    const u = await createUser(t);
    expect(await meOf(u.token)).toMatchObject({ is_admin: false, role: 'customer' });
    expect((await t.services.auth.authenticate(u.token))?.isAdmin).toBe(false);
  });
});

describe('ADMIN_EMAILS', () => {
  let t2: TestContext;
  beforeAll(async () => {
    t2 = await createTestContext({ env: { ADMIN_EMAILS: 'boss@x.com, Chefe@Example.com, novo-chefe@example.com' } });
  });
  afterAll(() => t2.close());
  const registerAt2 = (email: string) => t2.api('POST', '/api/auth/register', { body: registration({ email }), headers: freshIp() });

  test('an email listed in config is admin on /api/me and login', async () => {
    const boss = await createUser(t2, { email: 'boss@x.com' });
    const me = await t2.api('GET', '/api/me', { token: boss.token });
    expect(me.body.user).toMatchObject({ email: 'boss@x.com', is_admin: true, role: 'admin' });
    const r = await t2.api('POST', '/api/auth/login', { body: { email: 'BOSS@x.com', password: boss.password }, headers: freshIp() });
    expect(r.body.user).toMatchObject({ is_admin: true, role: 'admin' });
    expect((await t2.services.auth.authenticate(boss.token))?.isAdmin).toBe(true);
  });

  test('the config list is case-insensitive; the database row itself is not changed', async () => {
    const chefe = await createUser(t2, { email: 'chefe@example.com' });
    const me = await t2.api('GET', '/api/me', { token: chefe.token });
    expect(me.body.user).toMatchObject({ is_admin: true, role: 'admin' });
    const row = await t2.services.db('users').where({ id: chefe.user.id }).first();
    expect(row).toMatchObject({ is_admin: false, role: 'customer' });
  });

  test('a listed email cannot be taken by self-registration (it would grant admin to whoever comes first)', async () => {
    for (const email of ['novo-chefe@example.com', 'Novo-Chefe@Example.com']) {
      const r = await registerAt2(email);
      expect(r.status).toBe(409);
      // the same answer as any taken e-mail or CPF: a stranger does not learn it is an admin's address
      expect(r.body).toEqual({ error: 'account_exists', message: ACCOUNT_EXISTS });
    }
    expect(await t2.services.db('users').where({ email: 'novo-chefe@example.com' })).toHaveLength(0);
    // the operator creates it from the CLI instead
    const admin = await t2.services.auth.createAdmin({ name: 'Novo Chefe', email: 'novo-chefe@example.com', password: 'senha-do-chefe' });
    expect(admin).toMatchObject({ is_admin: true, role: 'admin' });
  });

  test('other emails are not admin', async () => {
    const u = await createUser(t2, { email: 'boss@x.com.br' });
    const me = await t2.api('GET', '/api/me', { token: u.token });
    expect(me.body.user).toMatchObject({ is_admin: false, role: 'customer' });
  });
});

describe('logs', () => {
  let t3: TestContext;
  let smtp: FakeSmtp;
  const lines: string[] = [];
  beforeAll(async () => {
    smtp = await fakeSmtp();
    t3 = await createTestContext({
      env: { SMTP_URL: smtp.url },
      logger: (config) => createLogger({ level: 'info', name: `test-${config.queuePrefix}`, destination: { write: (s: string) => void lines.push(s) } }),
    });
  });
  afterAll(async () => {
    await t3.close();
    await smtp.close();
  });

  const parsed = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

  test('a login request is logged with its request id, never the password or the token', async () => {
    const u = await createUser(t3, { password: 'Senha-Secreta-XYZ-987' });
    lines.length = 0;
    const reqId = 'login-req-0001';
    const r = await t3.api('POST', '/api/auth/login', { body: { email: u.email, password: 'Senha-Secreta-XYZ-987' }, headers: { ...freshIp(), 'x-request-id': reqId } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-request-id')).toBe(reqId);
    const token = r.body.token as string;

    const me = await t3.api('GET', '/api/me', { token, headers: { 'x-request-id': 'me-req-00002' } });
    expect(me.status).toBe(200);
    const failed = await t3.api('POST', '/api/auth/login', {
      body: { email: u.email, password: 'Wrong-Secret-ABC-123' },
      headers: { ...freshIp(), 'x-request-id': 'login-req-0003' },
    });
    expect(failed.status).toBe(401);

    const entries = parsed();
    expect(entries).toContainEqual(expect.objectContaining({ reqId, msg: 'request', method: 'POST', path: '/api/auth/login', status: 200 }));
    expect(entries).toContainEqual(expect.objectContaining({ reqId: 'me-req-00002', path: '/api/me', status: 200, userId: u.user.id }));
    expect(entries).toContainEqual(expect.objectContaining({ reqId: 'login-req-0003', path: '/api/auth/login', status: 401 }));

    const all = lines.join('\n');
    expect(all).not.toContain('Senha-Secreta-XYZ-987');
    expect(all).not.toContain('Wrong-Secret-ABC-123');
    expect(all).not.toContain(token);
    expect(all).not.toContain(u.token);
  });

  test('a password reset never logs the link token', async () => {
    const u = await createUser(t3);
    lines.length = 0;
    const r = await t3.api('POST', '/api/auth/reset-password', { body: { email: u.email }, headers: { ...freshIp(), 'x-request-id': 'reset-req-0001' } });
    expect(r.status).toBe(202);
    const [mail] = await t3.services.db('mail_outbox').where({ to_address: u.email });
    expect(await t3.services.mailer.deliver(mail.id)).toBe('sent');
    const token = resetTokenFrom(smtp.mails.find((m) => m.to.includes(u.email))!.text);
    const entries = parsed();
    expect(entries).toContainEqual(expect.objectContaining({ reqId: 'reset-req-0001', path: '/api/auth/reset-password', status: 202 }));
    expect(lines.join('\n')).not.toContain(token);
    expect(lines.join('\n')).not.toContain('token=');
  });

  test('an unexpected error is logged with the request id and answered with a bare 500', async () => {
    const spy = jest.spyOn(t3.services.auth, 'me').mockRejectedValueOnce(new Error('boom: database exploded'));
    try {
      const u = await createUser(t3);
      lines.length = 0;
      const r = await t3.api('GET', '/api/me', { token: u.token, headers: { 'x-request-id': 'boom-req-0001' } });
      expect(r.status).toBe(500);
      expect(r.body).toEqual({ error: 'internal_error', message: 'Erro interno. Tente novamente em instantes.', request_id: 'boom-req-0001' });
      expect(r.text).not.toContain('database exploded');
      expect(parsed()).toContainEqual(expect.objectContaining({ reqId: 'boom-req-0001', msg: 'unhandled error', level: 50 }));
    } finally {
      spy.mockRestore();
    }
  });
});

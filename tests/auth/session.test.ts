import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { createLogger } from '../../src/platform/logger';
import { freshIp, publicUser, registration, resetTokenFrom, resetTokenOf } from './fixtures';
import { createServices } from '../../src/services';
import { adminEmailsMismatch } from '../../src/platform/metrics';
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
    expect(r.body).toEqual({
      error: 'validation_error',
      message,
      details: expect.arrayContaining([expect.objectContaining({ path: field, message })]),
    });
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
    await t.services
      .db('auth_tokens')
      .where({ user_id: u.user.id })
      .update({ expires_at: t.services.db.raw("now() - interval '1 second'") });
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
    // the session user that guards admin routes is read fresh (RULES U1), even when the
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

describe('ADMIN_EMAILS: admin only once the account proved the address (or was made with users create-admin)', () => {
  let t2: TestContext;
  let smtp2: FakeSmtp;
  beforeAll(async () => {
    smtp2 = await fakeSmtp();
    t2 = await createTestContext({
      env: {
        ADMIN_EMAILS:
          'boss@x.com, Chefe@Example.com, novo-chefe@example.com, antigo@example.com, dono@example.com, tomada@example.com, lista@example.com',
        SMTP_URL: smtp2.url,
      },
    });
  });
  afterAll(async () => {
    await t2.close();
    await smtp2.close();
  });
  const registerAt2 = (email: string) => t2.api('POST', '/api/auth/register', { body: registration({ email }), headers: freshIp() });
  const isAdmin = async (token: string) => (await t2.api('GET', '/api/me', { token })).body.user.is_admin as boolean;
  /** Delivers the pending proof mail to `email` and returns the token of the link it carried (to the web page). */
  async function proofLink(email: string): Promise<string> {
    const row = await t2.services
      .db('mail_outbox')
      .where({ to_address: email, template: 'admin_email_confirm', status: 'pending' })
      .orderBy('id', 'desc')
      .first();
    expect(row).toBeTruthy();
    expect(row.body_text).not.toMatch(/token=/);
    expect(await t2.services.mailer.deliver(row.id)).toBe('sent');
    const mail = smtp2.mails.filter((m) => m.to.includes(email)).at(-1)!;
    const m = /http:\/\/cotaverde\.test\/confirmar-email-admin\?token=([A-Za-z0-9_%-]+)/.exec(mail.text);
    expect(m).toBeTruthy();
    // The stored copy keeps the text without the link.
    expect((await t2.services.db('mail_outbox').where({ id: row.id }).first()).body_text).not.toMatch(/token=/);
    return decodeURIComponent(m![1]);
  }
  const check = (token: string) => t2.api('GET', `/api/auth/confirm-admin-email?token=${encodeURIComponent(token)}`);
  const confirm = (token: string, session?: string) => t2.api('POST', '/api/auth/confirm-admin-email', { token: session, body: { token } });

  test('registering a listed address gives a customer account and mails a proof link; the link makes it admin, once', async () => {
    const r = await registerAt2('Novo-Chefe@Example.com');
    expect(r.status).toBe(201);
    expect(r.body.user).toMatchObject({ is_admin: false, role: 'customer' });
    const login = await t2.api('POST', '/api/auth/login', {
      body: { email: 'novo-chefe@example.com', password: registration({}).password },
      headers: freshIp(),
    });
    expect(login.status).toBe(200);
    expect(login.body.user).toMatchObject({ is_admin: false });
    // Not admin anywhere before the proof: the admin API refuses it.
    expect((await t2.api('GET', '/api/admin/users', { token: login.body.token })).status).toBe(403);
    const token = await proofLink('novo-chefe@example.com');
    const bad = await check('nao-e-um-token-valido');
    expect([bad.status, bad.body.error]).toEqual([400, 'invalid_token']);
    // The GET (what the page, a browser or a mail scanner opening the link asks) changes nothing, however often.
    for (let i = 0; i < 2; i++) {
      const seen = await check(token);
      expect([seen.status, seen.body]).toEqual([200, { valid: true, email: 'novo-chefe@example.com' }]);
      expect(seen.headers.get('cache-control')).toBe('no-store');
    }
    expect(await isAdmin(login.body.token)).toBe(false);
    // Confirming takes a session of the link's account.
    expect(await confirm(token)).toMatchObject({ status: 401, body: { error: 'unauthenticated' } });
    const ok = await confirm(token, login.body.token);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ ok: true, user_id: login.body.user.id, email: 'novo-chefe@example.com' });
    expect(await isAdmin(login.body.token)).toBe(true);
    expect((await t2.services.auth.authenticate(login.body.token))?.isAdmin).toBe(true);
    expect((await t2.api('GET', '/api/admin/users', { token: login.body.token })).status).toBe(200);
    // Single use.
    const again = await confirm(token, login.body.token);
    expect([again.status, again.body.error]).toEqual([400, 'invalid_token']);
    expect([(await check(token)).status, (await check(token)).body.error]).toEqual([400, 'invalid_token']);
    expect(await t2.services.db('audit_log').where({ action: 'user.admin_email_proved', entity_id: String(ok.body.user_id) })).toHaveLength(
      1,
    );
  });

  test('POST: bad bodies → 400; a session of another account → 403 wrong_account and the link stays usable by its own account', async () => {
    const owner = await createUser(t2, { email: 'dono@example.com' });
    // Its account is older than the list: signing in mails the link.
    expect(
      (await t2.api('POST', '/api/auth/login', { body: { email: owner.email, password: owner.password }, headers: freshIp() })).status,
    ).toBe(200);
    const token = await proofLink('dono@example.com');
    const other = await createUser(t2);
    const admin = await createUser(t2, { admin: true });
    for (const session of [other.token, admin.token]) {
      const r = await confirm(token, session);
      expect(r.status).toBe(403);
      expect(r.body).toEqual({
        error: 'wrong_account',
        message: 'Este link confirma o e-mail dono@example.com. Saia desta conta, entre com dono@example.com e abra o link de novo.',
      });
    }
    for (const body of [{}, { token: 12 }, { token: 'curto' }, { token: 'x'.repeat(201) }]) {
      const r = await t2.api('POST', '/api/auth/confirm-admin-email', { token: owner.token, body });
      expect([r.status, r.body.error, r.body.message]).toEqual([400, 'validation_error', 'Link de confirmação inválido ou expirado.']);
    }
    expect(await isAdmin(other.token)).toBe(false);
    expect(await isAdmin(owner.token)).toBe(false);
    expect((await confirm(token, owner.token)).status).toBe(200);
    expect(await isAdmin(owner.token)).toBe(true);
  });

  test('an existing account with a listed address is not admin until it proves it; signing in mails the link (once an hour); a browser opening the API link changes nothing', async () => {
    const old = await createUser(t2, { email: 'antigo@example.com' });
    expect(await isAdmin(old.token)).toBe(false);
    expect((await t2.services.auth.authenticate(old.token))?.isAdmin).toBe(false);
    for (let i = 0; i < 2; i++)
      expect(
        (await t2.api('POST', '/api/auth/login', { body: { email: old.email, password: old.password }, headers: freshIp() })).status,
      ).toBe(200);
    expect(await t2.services.db('mail_outbox').where({ to_address: old.email, template: 'admin_email_confirm' })).toHaveLength(1);
    const token = await proofLink(old.email);
    const page = await fetch(`${t2.url}/api/auth/confirm-admin-email?token=${encodeURIComponent(token)}`, {
      headers: { accept: 'text/html' },
      redirect: 'manual',
    });
    expect(page.status).toBe(200);
    expect(await isAdmin(old.token)).toBe(false);
    expect((await confirm(token, old.token)).status).toBe(200);
    expect(await isAdmin(old.token)).toBe(true);
  });

  test('a proof is for the address it was sent to: an account whose e-mail changed afterwards is not admin by it', async () => {
    const u = await createUser(t2, { email: 'chefe@example.com' });
    await t2.api('POST', '/api/auth/login', { body: { email: u.email, password: u.password }, headers: freshIp() });
    const token = await proofLink('chefe@example.com');
    await t2.services.db('users').where({ id: u.user.id }).update({ email: 'outro@example.com' });
    expect([(await check(token)).status, (await check(token)).body.error]).toEqual([400, 'invalid_token']);
    const r = await confirm(token, u.token);
    expect([r.status, r.body.error]).toEqual([400, 'invalid_token']);
    expect(await isAdmin(u.token)).toBe(false);
    // The row itself never gets is_admin.
    expect(await t2.services.db('users').where({ id: u.user.id }).first('is_admin', 'role', 'admin_email_proved')).toEqual({
      is_admin: false,
      role: 'customer',
      admin_email_proved: null,
    });
  });

  test('a squatter who registered the listed address first gets nothing when the owner (or a scanner) opens the link; the owner takes the account back with a password reset', async () => {
    const squatter = await registerAt2('tomada@example.com');
    expect(squatter.status).toBe(201);
    const squatterSession = await t2.api('POST', '/api/auth/login', {
      body: { email: 'tomada@example.com', password: registration({}).password },
      headers: freshIp(),
    });
    const token = await proofLink('tomada@example.com');
    // The owner's mail client prefetches the link, the owner opens it signed out: nothing changes.
    expect((await check(token)).status).toBe(200);
    expect((await confirm(token)).status).toBe(401);
    expect(await isAdmin(squatterSession.body.token)).toBe(false);
    // The owner resets the password through the mailbox: every session of the account ends.
    const reset = await resetTokenOf(t2, smtp2, 'tomada@example.com');
    expect(
      (
        await t2.api('POST', '/api/auth/reset-password/confirm', {
          body: { token: reset, password: 'senha-da-dona-1' },
          headers: freshIp(),
        })
      ).status,
    ).toBe(200);
    expect((await t2.api('GET', '/api/me', { token: squatterSession.body.token })).status).toBe(401);
    const owner = await t2.api('POST', '/api/auth/login', {
      body: { email: 'tomada@example.com', password: 'senha-da-dona-1' },
      headers: freshIp(),
    });
    expect(owner.status).toBe(200);
    expect((await confirm(token, owner.body.token)).status).toBe(200);
    expect(await isAdmin(owner.body.token)).toBe(true);
  });

  test('a sender whose ADMIN_EMAILS does not list the address (processes configured apart) sends the queued proof mail, loudly: error log with both views, audit entry, metric', async () => {
    const old = await createUser(t2, { email: 'lista@example.com' });
    expect(
      (await t2.api('POST', '/api/auth/login', { body: { email: old.email, password: old.password }, headers: freshIp() })).status,
    ).toBe(200);
    const row = await t2.services
      .db('mail_outbox')
      .where({ to_address: old.email, template: 'admin_email_confirm', status: 'pending' })
      .first();
    expect(row).toBeTruthy();
    // A worker started with another ADMIN_EMAILS (here: none), on the same database and SMTP.
    const logs: string[] = [];
    const worker = createServices({
      config: { ...t2.services.config, adminEmails: [] },
      logger: createLogger({ level: 'info', name: 'other-worker', destination: { write: (l: string) => void logs.push(l) } }),
    });
    const before = (await adminEmailsMismatch.get()).values[0]?.value ?? 0;
    try {
      expect(await worker.mailer.deliver(row.id)).toBe('sent');
    } finally {
      await worker.close();
    }
    // The mail went as queued: the owner can prove the address.
    const mail = smtp2.mails.filter((m) => m.to.includes(old.email)).at(-1)!;
    expect(mail.text).toMatch(/\/confirmar-email-admin\?token=/);
    const error = logs.map((l) => JSON.parse(l)).find((l) => l.level === 50);
    expect(error).toMatchObject({ outboxId: row.id, userId: old.user.id, queuedAs: 'listed', senderList: 'not listed' });
    expect(error.msg).toContain('ADMIN_EMAILS differs between processes');
    expect(logs.join('\n')).not.toMatch(/token=/);
    expect(
      await t2.services
        .db('audit_log')
        .where({ action: 'config.admin_emails_mismatch', entity_id: String(old.user.id) })
        .first(),
    ).toMatchObject({
      actor: 'system',
      data: { outbox_id: row.id, queued_as: 'listed', sender_list: 'not listed' },
    });
    expect((await adminEmailsMismatch.get()).values[0]?.value).toBe(before + 1);
  });

  test('users create-admin makes a listed address admin at once', async () => {
    const admin = await t2.services.auth.createAdmin({ name: 'Boss', email: 'boss@x.com', password: 'senha-do-chefe' });
    expect(admin).toMatchObject({ is_admin: true, role: 'admin' });
  });

  test('other emails are not admin and get no proof mail', async () => {
    const u = await createUser(t2, { email: 'boss@x.com.br' });
    await t2.api('POST', '/api/auth/login', { body: { email: u.email, password: u.password }, headers: freshIp() });
    expect(await isAdmin(u.token)).toBe(false);
    expect(await t2.services.db('mail_outbox').where({ to_address: u.email, template: 'admin_email_confirm' })).toHaveLength(0);
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
      logger: (config) =>
        createLogger({ level: 'info', name: `test-${config.queuePrefix}`, destination: { write: (s: string) => void lines.push(s) } }),
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
    const r = await t3.api('POST', '/api/auth/login', {
      body: { email: u.email, password: 'Senha-Secreta-XYZ-987' },
      headers: { ...freshIp(), 'x-request-id': reqId },
    });
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
    expect(entries).toContainEqual(
      expect.objectContaining({ reqId, msg: 'request', method: 'POST', path: '/api/auth/login', status: 200 }),
    );
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
    const r = await t3.api('POST', '/api/auth/reset-password', {
      body: { email: u.email },
      headers: { ...freshIp(), 'x-request-id': 'reset-req-0001' },
    });
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
      expect(r.body).toEqual({
        error: 'internal_error',
        message: 'Erro interno. Tente novamente em instantes.',
        request_id: 'boom-req-0001',
      });
      expect(r.text).not.toContain('database exploded');
      expect(parsed()).toContainEqual(expect.objectContaining({ reqId: 'boom-req-0001', msg: 'unhandled error', level: 50 }));
    } finally {
      spy.mockRestore();
    }
  });
});

import { generate } from 'otplib';
import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { createLogger } from '../../src/platform/logger';
import { fakeSmtp, type FakeSmtp } from '../helpers/smtp';
import { freshIp, resetTokenOf } from './fixtures';
import { makeProductWithDraw, grant, sellDirectly } from '../draws/fixtures';

/**
 * Two-factor sign-in (TOTP): setup, enable, the sign-in's second step, disable, recovery codes,
 * the mfa_token's limits, the admin enrolment rule (ADMIN_MFA_REQUIRED) and what keeps working
 * around it (password reset, anonymization). The app's TOTP clock is this file's `clock`: a new
 * code is taken from a later time step by moving it (no sleeping).
 */
let clock = Date.now();
const tick = () => {
  clock += 30_000;
};
const codeAt = (secret: string, ms = clock) => generate({ secret, epoch: Math.floor(ms / 1000) });

let t: TestContext;
let smtp: FakeSmtp;
const lines: string[] = [];
beforeAll(async () => {
  smtp = await fakeSmtp();
  t = await createTestContext({
    now: () => clock,
    env: { SMTP_URL: smtp.url },
    logger: (config) =>
      createLogger({ level: 'info', name: `test-${config.queuePrefix}`, destination: { write: (s: string) => void lines.push(s) } }),
  });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const setup = (u: { token: string }) => t.api('POST', '/api/auth/mfa/setup', { token: u.token });
const enable = (u: { token: string }, body: unknown) => t.api('POST', '/api/auth/mfa/enable', { token: u.token, body });
const disable = (u: { token: string }, body: unknown) => t.api('POST', '/api/auth/mfa/disable', { token: u.token, body });
const login = (u: { email: string; password: string }, headers: Record<string, string> = freshIp(), extra: Record<string, unknown> = {}) =>
  t.api('POST', '/api/auth/login', { body: { email: u.email, password: u.password, ...extra }, headers });
const loginMfa = (body: unknown, headers: Record<string, string> = freshIp()) => t.api('POST', '/api/auth/login/mfa', { body, headers });
const me = async (token: string) => (await t.api('GET', '/api/me', { token })).body.user;

/** A user with two factors on: its secret and recovery codes; the clock has moved past the enabling code's step. */
async function enrolled(o: Parameters<typeof createUser>[1] = {}) {
  const u = await createUser(t, o);
  const s = await setup(u);
  expect(s.status).toBe(200);
  const e = await enable(u, { code: await codeAt(s.body.secret) });
  expect(e.status).toBe(200);
  tick();
  return { ...u, secret: s.body.secret as string, recovery: e.body.recovery_codes as string[] };
}

/** The password step of an account with two factors on: its mfa_token. */
async function mfaToken(u: { email: string; password: string }, headers: Record<string, string> = freshIp()): Promise<string> {
  const r = await login(u, headers);
  expect(r.status).toBe(200);
  expect(r.body).toEqual({ mfa_required: true, mfa_token: expect.stringMatching(/^[A-Za-z0-9_-]{40,}$/) });
  return r.body.mfa_token;
}

const INVALID_CODE_400 = { error: 'invalid_code', message: 'Código inválido.' };
const INVALID_CODE_401 = { error: 'invalid_code', message: 'Código inválido.' };
const EXPIRED = { error: 'mfa_token_expired', message: 'A verificação expirou. Entre de novo com e-mail e senha.' };
const UNAUTHENTICATED = { error: 'unauthenticated', message: 'Faça login para continuar.' };
const TOTP_MSG = 'Informe o código de 6 dígitos do aplicativo autenticador.';
const ANY_MSG = 'Informe o código de 6 dígitos do aplicativo autenticador ou um código de recuperação.';

describe('POST /api/auth/mfa/setup', () => {
  test('answers the secret, the otpauth URL and its QR code; the secret is kept encrypted, never in clear', async () => {
    const u = await createUser(t);
    const r = await setup(u);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['otpauth_url', 'qr_code_data_url', 'secret']);
    expect(r.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(r.body.otpauth_url).toBe(
      `otpauth://totp/Cota%20Verde:${encodeURIComponent(u.email)}?secret=${r.body.secret}&issuer=Cota%20Verde`,
    );
    expect(r.body.qr_code_data_url).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/=]+$/);
    const png = Buffer.from(r.body.qr_code_data_url.split(',')[1], 'base64');
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(r.headers.get('cache-control')).toBe('no-store');

    const row = await t.services.db('user_mfa').where({ user_id: u.user.id }).first();
    expect(row).toMatchObject({ secret_enc: null, enabled_at: null });
    expect(row.pending_secret_enc).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(r.body.secret);
    // Not on yet.
    expect(await me(u.token)).toMatchObject({ mfa_enabled: false, mfa_enrollment_required: false });
  });

  test('calling it again replaces the pending secret: only the new one enables', async () => {
    const u = await createUser(t);
    const first = (await setup(u)).body.secret;
    const second = (await setup(u)).body.secret;
    expect(second).not.toBe(first);
    expect(await enable(u, { code: await codeAt(first) })).toMatchObject({ status: 400, body: INVALID_CODE_400 });
    expect((await enable(u, { code: await codeAt(second) })).status).toBe(200);
    tick();
  });

  test('anonymous → 401; with two factors on → 409 mfa_already_enabled (the secret stays)', async () => {
    expect(await t.api('POST', '/api/auth/mfa/setup')).toMatchObject({ status: 401, body: UNAUTHENTICATED });
    const u = await enrolled();
    const before = await t.services.db('user_mfa').where({ user_id: u.user.id }).first();
    const r = await setup(u);
    expect([r.status, r.body.error]).toEqual([409, 'mfa_already_enabled']);
    expect(r.body.message).toBe('A verificação em duas etapas já está ativa nesta conta.');
    expect(await t.services.db('user_mfa').where({ user_id: u.user.id }).first()).toEqual(before);
  });
});

describe('POST /api/auth/mfa/enable', () => {
  test('a right code turns it on: 10 single-use recovery codes (stored hashed), other sessions end, this one stays', async () => {
    const u = await createUser(t);
    const other = await login(u);
    expect(other.status).toBe(200);
    const s = await setup(u);
    const r = await enable(u, { code: await codeAt(s.body.secret) });
    tick();
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['recovery_codes']);
    expect(r.body.recovery_codes).toHaveLength(10);
    expect(new Set(r.body.recovery_codes).size).toBe(10);
    for (const c of r.body.recovery_codes) expect(c).toMatch(/^[a-km-np-z2-9]{5}-[a-km-np-z2-9]{5}$/);
    const stored = await t.services.db('mfa_recovery_codes').where({ user_id: u.user.id });
    expect(stored).toHaveLength(10);
    const dump = JSON.stringify(stored);
    for (const c of r.body.recovery_codes) {
      expect(dump).not.toContain(c);
      expect(dump).not.toContain(c.replace('-', ''));
    }
    const row = await t.services.db('user_mfa').where({ user_id: u.user.id }).first();
    expect(row.enabled_at).toBeInstanceOf(Date);
    expect(row.pending_secret_enc).toBeNull();
    expect(JSON.stringify(row)).not.toContain(s.body.secret);

    expect(await me(u.token)).toMatchObject({ mfa_enabled: true, mfa_enrollment_required: false });
    expect((await t.api('GET', '/api/me', { token: other.body.token })).status).toBe(401);
    expect(await t.services.db('audit_log').where({ action: 'user.mfa_enabled', entity_id: String(u.user.id) })).toHaveLength(1);
    // Enabling again: 409.
    expect((await enable(u, { code: await codeAt(s.body.secret) })).body.error).toBe('mfa_already_enabled');
  });

  test.each([
    [{}, TOTP_MSG],
    [{ code: '' }, TOTP_MSG],
    [{ code: '12345' }, TOTP_MSG],
    [{ code: '1234567' }, TOTP_MSG],
    [{ code: 'abcdef' }, TOTP_MSG],
    [{ code: 123456 }, TOTP_MSG],
    [{ code: 'abcde-fghjk' }, TOTP_MSG],
    [{ code: '1'.repeat(100) }, TOTP_MSG],
  ])('%j → 400 validation_error', async (body, message) => {
    const u = await createUser(t);
    await setup(u);
    const r = await enable(u, body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'validation_error', message });
  });

  test('a non-object body → 400', async () => {
    const u = await createUser(t);
    const r = await t.api('POST', '/api/auth/mfa/enable', { token: u.token, rawBody: '["123456"]' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'validation_error', message: 'Envie os dados como um objeto JSON.' });
  });

  test('a wrong code → 400 invalid_code (a code with spaces is read without them); no pending setup → 409; anonymous → 401', async () => {
    const u = await createUser(t);
    expect(await enable(u, { code: '123456' })).toMatchObject({ status: 409, body: { error: 'mfa_setup_required' } });
    const s = await setup(u);
    const right = await codeAt(s.body.secret);
    const wrong = right === '000000' ? '111111' : '000000';
    expect(await enable(u, { code: wrong })).toMatchObject({ status: 400, body: INVALID_CODE_400 });
    expect(await t.api('POST', '/api/auth/mfa/enable', { body: { code: right } })).toMatchObject({ status: 401, body: UNAUTHENTICATED });
    expect(await t.services.db('user_mfa').where({ user_id: u.user.id }).first('enabled_at')).toEqual({ enabled_at: null });
    expect((await enable(u, { code: `${right.slice(0, 3)} ${right.slice(3)}` })).status).toBe(200);
    tick();
  });

  test('another account cannot enable with my pending secret: its own setup is separate', async () => {
    const a = await createUser(t);
    const b = await createUser(t);
    const s = await setup(a);
    // b has no pending setup of its own: a's code means nothing to it.
    expect((await enable(b, { code: await codeAt(s.body.secret) })).body.error).toBe('mfa_setup_required');
    await setup(b);
    expect(await enable(b, { code: await codeAt(s.body.secret) })).toMatchObject({ status: 400, body: INVALID_CODE_400 });
    expect(await t.services.db('user_mfa').where({ user_id: a.user.id }).first('enabled_at')).toEqual({ enabled_at: null });
  });

  test('wrong codes are limited per account (5 / 15 min): then 429', async () => {
    const u = await createUser(t);
    const s = await setup(u);
    const right = await codeAt(s.body.secret);
    const wrong = right === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) expect((await enable(u, { code: wrong })).status).toBe(400);
    const r = await enable(u, { code: right });
    expect([r.status, r.body.error]).toEqual([429, 'rate_limited']);
  });
});

describe('sign-in with two factors', () => {
  test('the password step answers {mfa_required, mfa_token} without a session or cookie; the code step answers like a sign-in, cookie included', async () => {
    const u = await enrolled({ name: 'Bia Duas Etapas' });
    const sessionsBefore = await t.services.db('auth_tokens').where({ user_id: u.user.id }).count<{ c: string }[]>({ c: '*' });
    const first = await login(u, freshIp(), { remember: false });
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['mfa_required', 'mfa_token']);
    expect(first.body.mfa_required).toBe(true);
    expect(first.headers.get('set-cookie')).toBeNull();
    expect(await t.services.db('auth_tokens').where({ user_id: u.user.id }).count<{ c: string }[]>({ c: '*' })).toEqual(sessionsBefore);
    // The mfa_token is no session token.
    expect((await t.api('GET', '/api/me', { token: first.body.mfa_token })).status).toBe(401);
    // Stored hashed.
    expect(JSON.stringify(await t.services.db('mfa_challenges').where({ user_id: u.user.id }))).not.toContain(first.body.mfa_token);

    const r = await loginMfa({ mfa_token: first.body.mfa_token, code: await codeAt(u.secret) });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['token', 'user']);
    expect(r.body.user).toMatchObject({ id: u.user.id, email: u.email, name: 'Bia Duas Etapas', is_admin: false });
    const cookie = r.headers.get('set-cookie') ?? '';
    expect(cookie).toContain(`cv_session=${r.body.token}`);
    expect(cookie).toContain('HttpOnly');
    // remember: false on the password step → a browser-session cookie.
    expect(cookie).not.toMatch(/Max-Age/i);
    expect(await me(r.body.token)).toMatchObject({ id: u.user.id, mfa_enabled: true });
  });

  test('a TOTP code is taken once: the same time step again, even on a new mfa_token, → 401 invalid_code', async () => {
    const u = await enrolled();
    const code = await codeAt(u.secret);
    expect((await loginMfa({ mfa_token: await mfaToken(u), code })).status).toBe(200);
    const again = await loginMfa({ mfa_token: await mfaToken(u), code });
    expect(again).toMatchObject({ status: 401, body: INVALID_CODE_401 });
    // An earlier step than the last accepted one is refused too.
    tick();
    const later = await codeAt(u.secret);
    const earlier = await codeAt(u.secret, clock - 30_000);
    const token = await mfaToken(u);
    expect((await loginMfa({ mfa_token: token, code: later })).status).toBe(200);
    expect((await loginMfa({ mfa_token: await mfaToken(u), code: earlier })).body).toEqual(INVALID_CODE_401);
  });

  test('a code from one step before or after now is accepted; two steps away is not', async () => {
    const u = await enrolled();
    const wrongTimes = [clock - 60_000, clock + 60_000];
    for (const ms of wrongTimes)
      expect((await loginMfa({ mfa_token: await mfaToken(u), code: await codeAt(u.secret, ms) })).body).toEqual(INVALID_CODE_401);
    expect((await loginMfa({ mfa_token: await mfaToken(u), code: await codeAt(u.secret, clock + 30_000) })).status).toBe(200);
    tick();
    tick();
    expect((await loginMfa({ mfa_token: await mfaToken(u), code: await codeAt(u.secret, clock - 30_000) })).status).toBe(401);
  });

  test('a recovery code signs in once (case, spaces and the dash do not matter); spent → 401 invalid_code', async () => {
    const u = await enrolled();
    const [code] = u.recovery;
    const typed = ` ${code.replace('-', '').toUpperCase()} `;
    const r = await loginMfa({ mfa_token: await mfaToken(u), code: typed });
    expect(r.status).toBe(200);
    expect(await t.services.db('mfa_recovery_codes').where({ user_id: u.user.id }).whereNotNull('used_at')).toHaveLength(1);
    expect(await t.services.db('audit_log').where({ action: 'user.mfa_recovery_code_used', entity_id: String(u.user.id) })).toHaveLength(1);
    expect(await loginMfa({ mfa_token: await mfaToken(u), code })).toMatchObject({ status: 401, body: INVALID_CODE_401 });
    // Another account's recovery code is nothing here.
    const other = await enrolled();
    expect((await loginMfa({ mfa_token: await mfaToken(u), code: other.recovery[0] })).body).toEqual(INVALID_CODE_401);
    expect((await loginMfa({ mfa_token: await mfaToken(u), code: u.recovery[1] })).status).toBe(200);
  });

  test('an mfa_token is single use: after its success → 401 mfa_token_expired', async () => {
    const u = await enrolled();
    const token = await mfaToken(u);
    expect((await loginMfa({ mfa_token: token, code: await codeAt(u.secret) })).status).toBe(200);
    tick();
    expect(await loginMfa({ mfa_token: token, code: await codeAt(u.secret) })).toMatchObject({ status: 401, body: EXPIRED });
  });

  test('an mfa_token lives 5 minutes: past its expiry → 401 mfa_token_expired', async () => {
    const u = await enrolled();
    const token = await mfaToken(u);
    const row = await t.services.db('mfa_challenges').where({ user_id: u.user.id }).orderBy('id', 'desc').first();
    const life = (new Date(row.expires_at).getTime() - new Date(row.created_at).getTime()) / 60_000;
    expect(life).toBeCloseTo(5, 1);
    // Its time passes (the row's clock moved, not a sleep).
    await t.services
      .db('mfa_challenges')
      .where({ id: row.id })
      .update({ expires_at: t.services.db.raw("now() - interval '1 second'") });
    expect(await loginMfa({ mfa_token: token, code: await codeAt(u.secret) })).toMatchObject({ status: 401, body: EXPIRED });
  });

  test('an mfa_token allows 5 tries: then even the right code → 401 mfa_token_expired', async () => {
    const u = await enrolled();
    const token = await mfaToken(u);
    const right = await codeAt(u.secret);
    const wrong = right === '000000' ? '111111' : '000000';
    const headers = freshIp();
    for (let i = 0; i < 5; i++)
      expect(await loginMfa({ mfa_token: token, code: wrong }, headers)).toMatchObject({ status: 401, body: INVALID_CODE_401 });
    expect(await loginMfa({ mfa_token: token, code: right }, freshIp())).toMatchObject({ status: 401, body: EXPIRED });
    expect((await t.services.db('mfa_challenges').where({ user_id: u.user.id }).first('attempts')).attempts).toBe(5);
  });

  test('the sign-in limits count wrong codes: 5 from one address, then the account is limited there (429), not elsewhere', async () => {
    const u = await enrolled();
    const headers = freshIp();
    const right = await codeAt(u.secret);
    const wrong = right === '000000' ? '111111' : '000000';
    const token = await mfaToken(u, headers);
    for (let i = 0; i < 5; i++) expect((await loginMfa({ mfa_token: token, code: wrong }, headers)).status).toBe(401);
    const limited = await login(u, headers);
    expect([limited.status, limited.body.error]).toEqual([429, 'rate_limited']);
    const elsewhere = freshIp();
    expect((await loginMfa({ mfa_token: await mfaToken(u, elsewhere), code: right }, elsewhere)).status).toBe(200);
  });

  test.each([
    [{}, 'Verificação expirada. Entre de novo com e-mail e senha.'],
    [{ mfa_token: 'curto', code: '123456' }, 'Verificação expirada. Entre de novo com e-mail e senha.'],
    [{ mfa_token: 'x'.repeat(43) }, ANY_MSG],
    [{ mfa_token: 'x'.repeat(43), code: '12345' }, ANY_MSG],
    [{ mfa_token: 'x'.repeat(43), code: 'abc' }, ANY_MSG],
    [{ mfa_token: 'x'.repeat(43), code: 123456 }, ANY_MSG],
    [{ mfa_token: 'x'.repeat(43), code: 'abcde-fghij-k' }, ANY_MSG],
    [{ mfa_token: 43, code: '123456' }, 'Verificação expirada. Entre de novo com e-mail e senha.'],
  ])('%j → 400 validation_error', async (body, message) => {
    const r = await loginMfa(body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'validation_error', message });
  });

  test("an unknown mfa_token → 401 mfa_token_expired; another account's code does not open my token", async () => {
    expect(await loginMfa({ mfa_token: 'A'.repeat(43), code: '123456' })).toMatchObject({ status: 401, body: EXPIRED });
    const a = await enrolled();
    const b = await enrolled();
    expect(await loginMfa({ mfa_token: await mfaToken(a), code: await codeAt(b.secret) })).toMatchObject({
      status: 401,
      body: INVALID_CODE_401,
    });
  });

  test('race: one TOTP code sent by 5 parallel requests (one mfa_token, then five) opens exactly one session', async () => {
    for (const shape of ['one token', 'five tokens'] as const) {
      const u = await enrolled();
      const code = await codeAt(u.secret);
      const tokens =
        shape === 'one token' ? Array(5).fill(await mfaToken(u)) : await Promise.all(Array.from({ length: 5 }, () => mfaToken(u)));
      const before = Number((await t.services.db('auth_tokens').where({ user_id: u.user.id }).count<{ c: string }[]>({ c: '*' }))[0].c);
      const answers = await Promise.all(tokens.map((mfa_token) => loginMfa({ mfa_token, code })));
      expect([shape, answers.filter((a) => a.status === 200).length]).toEqual([shape, 1]);
      for (const a of answers.filter((x) => x.status !== 200)) {
        expect(a.status).toBe(401);
        expect(['invalid_code', 'mfa_token_expired']).toContain(a.body.error);
      }
      const after = Number((await t.services.db('auth_tokens').where({ user_id: u.user.id }).count<{ c: string }[]>({ c: '*' }))[0].c);
      expect([shape, after - before]).toEqual([shape, 1]);
      tick();
    }
  });

  test('a secret that cannot be read (APP_SECRET changed since) accepts no code: 401 invalid_code, an error log, never a 500', async () => {
    const u = await enrolled();
    // Encrypted under another key: what a changed APP_SECRET leaves behind.
    const { createMfaCrypto } = await import('../../src/auth/mfa');
    await t.services
      .db('user_mfa')
      .where({ user_id: u.user.id })
      .update({ secret_enc: createMfaCrypto('o-outro-segredo-de-32-caracteres-ou-mais').encrypt(u.secret) });
    lines.length = 0;
    expect(await loginMfa({ mfa_token: await mfaToken(u), code: await codeAt(u.secret) })).toMatchObject({
      status: 401,
      body: INVALID_CODE_401,
    });
    expect(lines.map((l) => JSON.parse(l))).toContainEqual(
      expect.objectContaining({ level: 50, userId: u.user.id, msg: expect.stringContaining('users mfa-reset') }),
    );
    // A recovery code still works.
    expect((await loginMfa({ mfa_token: await mfaToken(u), code: u.recovery[0] })).status).toBe(200);
  });

  test('neither the secret, the codes nor the tokens are logged', async () => {
    lines.length = 0;
    const u = await enrolled();
    const token = await mfaToken(u);
    const code = await codeAt(u.secret);
    const r = await loginMfa({ mfa_token: token, code });
    expect(r.status).toBe(200);
    const all = lines.join('\n');
    expect(all).toContain('/api/auth/login/mfa');
    for (const secret of [u.secret, token, r.body.token, ...u.recovery]) expect(all).not.toContain(secret);
  });
});

describe('POST /api/auth/mfa/disable', () => {
  test('with a TOTP code → 200: the password alone signs in again', async () => {
    const u = await enrolled();
    const r = await disable(u, { code: await codeAt(u.secret) });
    expect(r).toMatchObject({ status: 200, body: { ok: true } });
    expect(await me(u.token)).toMatchObject({ mfa_enabled: false });
    expect(await t.services.db('user_mfa').where({ user_id: u.user.id })).toHaveLength(0);
    expect(await t.services.db('mfa_recovery_codes').where({ user_id: u.user.id })).toHaveLength(0);
    const l = await login(u);
    expect(Object.keys(l.body).sort()).toEqual(['token', 'user']);
    expect(await t.services.db('audit_log').where({ action: 'user.mfa_disabled', entity_id: String(u.user.id) })).toHaveLength(1);
  });

  test('with a recovery code → 200', async () => {
    const u = await enrolled();
    expect((await disable(u, { code: u.recovery[3] })).status).toBe(200);
    expect(await me(u.token)).toMatchObject({ mfa_enabled: false });
  });

  test('a wrong code → 400 invalid_code (still on); not on → 409; anonymous → 401; bad shapes → 400', async () => {
    const u = await enrolled();
    const right = await codeAt(u.secret);
    expect(await disable(u, { code: right === '000000' ? '111111' : '000000' })).toMatchObject({ status: 400, body: INVALID_CODE_400 });
    expect(await disable(u, { code: 'zzzzz-zzzzz' })).toMatchObject({ status: 400, body: INVALID_CODE_400 });
    expect(await me(u.token)).toMatchObject({ mfa_enabled: true });
    expect(await t.api('POST', '/api/auth/mfa/disable', { body: { code: right } })).toMatchObject({ status: 401, body: UNAUTHENTICATED });
    for (const body of [{}, { code: '12' }, { code: 'não é código' }, { code: ['123456'] }]) {
      const r = await disable(u, body);
      expect([r.status, r.body.error, r.body.message]).toEqual([400, 'validation_error', ANY_MSG]);
    }
    const plain = await createUser(t);
    expect(await disable(plain, { code: '123456' })).toMatchObject({ status: 409, body: { error: 'mfa_not_enabled' } });
  });

  test("another account's code does not turn mine off", async () => {
    const a = await enrolled();
    const b = await enrolled();
    expect((await disable(a, { code: await codeAt(b.secret) })).status).toBe(400);
    expect((await disable(a, { code: b.recovery[0] })).status).toBe(400);
    expect(await me(a.token)).toMatchObject({ mfa_enabled: true });
    expect(await me(b.token)).toMatchObject({ mfa_enabled: true });
  });
});

describe('around two factors', () => {
  test('a password reset ends the sessions and keeps two factors on', async () => {
    const u = await enrolled();
    const token = await resetTokenOf(t, smtp, u.email);
    const r = await t.api('POST', '/api/auth/reset-password/confirm', {
      body: { token, password: 'nova-senha-forte-9' },
      headers: freshIp(),
    });
    expect(r.status).toBe(200);
    expect((await t.api('GET', '/api/me', { token: u.token })).status).toBe(401);
    const first = await login({ email: u.email, password: 'nova-senha-forte-9' });
    expect(first.body).toEqual({ mfa_required: true, mfa_token: expect.any(String) });
    expect((await loginMfa({ mfa_token: first.body.mfa_token, code: await codeAt(u.secret) })).status).toBe(200);
  });

  test('anonymizing an account clears its two-factor data', async () => {
    const admin = await createUser(t, { admin: true });
    const u = await enrolled();
    await mfaToken(u);
    const { product, draw } = await makeProductWithDraw(t, {}, { total_numbers: 10 });
    await grant(t, u.user.id, product.id, 1);
    await sellDirectly(t, draw.id, u.user.id, [2]);
    const r = await t.api('DELETE', `/api/admin/users/${u.user.id}`, { token: admin.token });
    expect([r.status, r.body.outcome]).toEqual([200, 'anonymized']);
    for (const table of ['user_mfa', 'mfa_recovery_codes', 'mfa_challenges'])
      expect([table, await t.services.db(table).where({ user_id: u.user.id })]).toEqual([table, []]);
  });

  test('with ADMIN_MFA_REQUIRED off (development and test default), an admin without two factors uses the console', async () => {
    expect(t.services.config.adminMfaRequired).toBe(false);
    const admin = await createUser(t, { admin: true });
    expect((await t.api('GET', '/api/admin/users', { token: admin.token })).status).toBe(200);
    expect(await me(admin.token)).toMatchObject({ is_admin: true, mfa_enabled: false, mfa_enrollment_required: false });
  });
});

describe('ADMIN_MFA_REQUIRED=true: an admin without two factors reaches only the enrolment', () => {
  let t2: TestContext;
  beforeAll(async () => {
    t2 = await createTestContext({ now: () => clock, env: { ADMIN_MFA_REQUIRED: 'true' } });
  });
  afterAll(() => t2.close());
  const REFUSED = { error: 'mfa_enrollment_required', message: 'Ative a verificação em duas etapas para usar o painel.' };

  test('admin routes and the /ops link → 403 mfa_enrollment_required; /api/me and enrolment work; signed in with the code, the console opens', async () => {
    expect(t2.services.config.adminMfaRequired).toBe(true);
    const admin = await createUser(t2, { admin: true });
    expect(await t2.api('GET', '/api/admin/users', { token: admin.token })).toMatchObject({ status: 403, body: REFUSED });
    expect(await t2.api('GET', '/api/admin/dashboard/summary', { token: admin.token })).toMatchObject({ status: 403, body: REFUSED });
    expect(await t2.api('POST', '/api/admin/ops/link', { token: admin.token })).toMatchObject({ status: 403, body: REFUSED });
    const m = await t2.api('GET', '/api/me', { token: admin.token });
    expect(m.status).toBe(200);
    expect(m.body.user).toMatchObject({ is_admin: true, mfa_enabled: false, mfa_enrollment_required: true });

    // Enrolment.
    const s = await t2.api('POST', '/api/auth/mfa/setup', { token: admin.token });
    expect(s.status).toBe(200);
    const e = await t2.api('POST', '/api/auth/mfa/enable', { token: admin.token, body: { code: await codeAt(s.body.secret) } });
    expect(e.status).toBe(200);
    tick();

    // Signing in now asks for the code; with it the console opens.
    const first = await t2.api('POST', '/api/auth/login', { body: { email: admin.email, password: admin.password }, headers: freshIp() });
    expect(first.body.mfa_required).toBe(true);
    const second = await t2.api('POST', '/api/auth/login/mfa', {
      body: { mfa_token: first.body.mfa_token, code: await codeAt(s.body.secret) },
      headers: freshIp(),
    });
    expect(second.status).toBe(200);
    expect(second.body.user).toMatchObject({ is_admin: true });
    expect((await t2.api('GET', '/api/admin/users', { token: second.body.token })).status).toBe(200);
    expect((await t2.api('GET', '/api/me', { token: second.body.token })).body.user).toMatchObject({
      mfa_enabled: true,
      mfa_enrollment_required: false,
    });
    const link = await t2.api('POST', '/api/admin/ops/link', { token: second.body.token });
    expect(link.status).toBe(200);
    tick();

    // Two factors turned off again: the console closes, the /ops link already issued opens nothing.
    expect(
      (await t2.api('POST', '/api/auth/mfa/disable', { token: second.body.token, body: { code: await codeAt(s.body.secret) } })).status,
    ).toBe(200);
    expect(await t2.api('GET', '/api/admin/users', { token: second.body.token })).toMatchObject({ status: 403, body: REFUSED });
    const opsPath = new URL(link.body.url).pathname + new URL(link.body.url).search;
    const ops = await t2.api('GET', opsPath);
    expect(ops).toMatchObject({ status: 403, body: REFUSED });
    // Logout still works.
    expect((await t2.api('POST', '/api/auth/logout', { token: second.body.token })).status).toBe(204);
  });

  test('a customer is refused as before (forbidden), and is never told to enrol', async () => {
    const c = await createUser(t2);
    expect(await t2.api('GET', '/api/admin/users', { token: c.token })).toMatchObject({
      status: 403,
      body: { error: 'forbidden', message: 'Acesso restrito a administradores.' },
    });
    expect((await t2.api('GET', '/api/me', { token: c.token })).body.user).toMatchObject({
      is_admin: false,
      mfa_enrollment_required: false,
    });
    expect(await t2.api('GET', '/api/admin/users')).toMatchObject({ status: 401, body: UNAUTHENTICATED });
  });

  test('an admin session open in /ops stops working when two factors go off', async () => {
    const admin = await createUser(t2, { admin: true });
    const s = await t2.api('POST', '/api/auth/mfa/setup', { token: admin.token });
    await t2.api('POST', '/api/auth/mfa/enable', { token: admin.token, body: { code: await codeAt(s.body.secret) } });
    tick();
    const link = await t2.api('POST', '/api/admin/ops/link', { token: admin.token });
    expect(link.status).toBe(200);
    const u = new URL(link.body.url);
    const opened = await fetch(t2.url + u.pathname + u.search, { redirect: 'manual' });
    expect(opened.status).toBe(303);
    const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0];
    expect((await t2.api('GET', '/ops/queues', { headers: { cookie } })).status).toBe(200);
    expect(
      (await t2.api('POST', '/api/auth/mfa/disable', { token: admin.token, body: { code: await codeAt(s.body.secret) } })).status,
    ).toBe(200);
    expect(await t2.api('GET', '/ops/queues', { headers: { cookie } })).toMatchObject({ status: 403, body: REFUSED });
  });
});

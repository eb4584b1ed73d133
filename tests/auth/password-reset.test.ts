import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { fakeSmtp, type FakeSmtp } from '../helpers/smtp';
import { RESET_ACCEPTED_MESSAGE, RESET_LINK_OMITTED, RESET_PENDING_TEXT, sha256 } from '../../src/auth/service';
import { freshIp, resetTokenFrom, resetTokenOf, uniqueEmail } from './fixtures';

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

const requestReset = (body: unknown) => t.api('POST', '/api/auth/reset-password', { body, headers: freshIp() });
const confirm = (body: unknown) => t.api('POST', '/api/auth/reset-password/confirm', { body, headers: freshIp() });
const login = (email: string, password: string) => t.api('POST', '/api/auth/login', { body: { email, password }, headers: freshIp() });
const mailsTo = (email: string) => t.services.db('mail_outbox').where({ to_address: email }).orderBy('id');
const sentTo = (email: string) => smtp.mails.filter((m) => m.to.includes(email));

/** Requests a reset for the email, delivers its mail and returns the token of the link sent. */
const resetToken = (email: string) => resetTokenOf(t, smtp, email);

/** Every text column of the outbox, of every row: where a token must never be. */
async function outboxText(): Promise<string> {
  const rows = await t.services.db('mail_outbox').select('to_address', 'subject', 'body_text', 'body_html', 'last_error');
  return JSON.stringify(rows);
}

const INVALID_TOKEN = { error: 'invalid_token', message: 'Link inválido ou expirado.' };

describe('POST /api/auth/reset-password', () => {
  test('answers 202 with the same body for known and unknown emails', async () => {
    const u = await createUser(t);
    const known = await requestReset({ email: u.email });
    const unknown = await requestReset({ email: 'ninguem-aqui@example.com' });
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(known.body).toEqual({ ok: true, message: RESET_ACCEPTED_MESSAGE });
    expect(unknown.text).toBe(known.text);
  });

  test('known and unknown addresses do the same work in the request: one pending outbox row and one queued job each, nothing else', async () => {
    const u = await createUser(t);
    const stranger = uniqueEmail('desconhecida');
    const resetsBefore = await t.services.db('password_resets').count({ n: '*' }).first();
    const auditBefore = await t.services.db('audit_log').count({ n: '*' }).first();
    const rows = [];
    for (const email of [u.email, stranger]) {
      expect((await requestReset({ email })).status).toBe(202);
      const mails = await mailsTo(email);
      expect(mails).toHaveLength(1);
      rows.push(mails[0]);
      const job = await t.services.queue.raw.getJob(`mail-send-${mails[0].id}`);
      expect(job?.name).toBe('mail.send');
      expect(job?.data).toEqual({ outboxId: mails[0].id });
    }
    const shape = (r: Record<string, unknown>) => ({ ...r, id: undefined, to_address: undefined, created_at: undefined });
    expect(shape(rows[0])).toEqual(shape(rows[1]));
    expect(rows[0]).toMatchObject({
      template: 'password_reset',
      subject: 'Cota Verde: redefinição de senha',
      status: 'pending',
      attempts: 0,
      body_text: RESET_PENDING_TEXT,
    });
    // no link and no audit entry yet, for either: the account is looked up only when the mail is sent
    expect(await t.services.db('password_resets').count({ n: '*' }).first()).toEqual(resetsBefore);
    expect(await t.services.db('audit_log').count({ n: '*' }).first()).toEqual(auditBefore);
  });

  test('on delivery a known address gets one mail with a single-use link; only its hash is stored and the outbox keeps the text without it', async () => {
    const u = await createUser(t, { name: 'Carla Dias' });
    const r = await requestReset({ email: u.email.toUpperCase() });
    expect(r.status).toBe(202);
    const [pending] = await mailsTo(u.email);
    expect(await t.services.mailer.deliver(pending.id)).toBe('sent');

    const sent = sentTo(u.email);
    expect(sent).toHaveLength(1);
    expect(sent[0].subject).toBe('Cota Verde: redefinição de senha');
    expect(sent[0].text).toContain('Olá, Carla Dias.');
    expect(sent[0].text).toMatch(/http:\/\/cotaverde\.test\/redefinir-senha\?token=[A-Za-z0-9_-]{40,}/);
    const token = resetTokenFrom(sent[0].text);

    // stored hashed, with an expiry counted from the sending
    const [reset] = await t.services.db('password_resets').where({ user_id: u.user.id });
    expect(reset.token_hash).toBe(sha256(token));
    expect(reset.used_at).toBeNull();
    const ttlMinutes = (reset.expires_at.getTime() - reset.created_at.getTime()) / 60_000;
    expect(Math.round(ttlMinutes)).toBe(t.services.config.passwordResetTtlMinutes);
    expect(await t.services.db('audit_log').where({ action: 'password_reset.requested', entity_id: String(u.user.id) })).toHaveLength(1);

    // the outbox row: sent, with the text as mailed minus the link
    const [row] = await mailsTo(u.email);
    expect(row).toMatchObject({ status: 'sent', attempts: 1, body_html: null });
    expect(row.body_text).toBe(
      sent[0].text.trimEnd().replace(/http:\/\/cotaverde\.test\/redefinir-senha\?token=[A-Za-z0-9_-]+/, RESET_LINK_OMITTED),
    );
    expect(await outboxText()).not.toContain(token);
    expect(await outboxText()).not.toContain(encodeURIComponent(token));

    // and the link works
    expect((await confirm({ token, password: 'nova-senha-123' })).status).toBe(200);
  });

  test('an unknown address: delivery drops the row, nothing is sent, no link is made', async () => {
    const email = uniqueEmail('ninguem');
    expect((await requestReset({ email })).status).toBe(202);
    const [pending] = await mailsTo(email);
    const resetsBefore = await t.services.db('password_resets').count({ n: '*' }).first();
    expect(await t.services.mailer.deliver(pending.id)).toBe('dropped');
    expect(sentTo(email)).toHaveLength(0);
    expect(await t.services.db('password_resets').count({ n: '*' }).first()).toEqual(resetsBefore);
    const [row] = await mailsTo(email);
    expect(row).toMatchObject({ status: 'dropped', attempts: 1, sent_at: null, body_text: RESET_PENDING_TEXT });
  });

  test('an account created after the request gets the link (the lookup happens at sending)', async () => {
    const email = uniqueEmail('nova');
    expect((await requestReset({ email })).status).toBe(202);
    const [pending] = await mailsTo(email);
    await createUser(t, { email });
    expect(await t.services.mailer.deliver(pending.id)).toBe('sent');
    expect(sentTo(email)).toHaveLength(1);
  });

  test('ignores a client-sent newPassword', async () => {
    const u = await createUser(t);
    const r = await requestReset({
      email: u.email,
      newPassword: 'escolhida-pelo-cliente',
      from: 'atacante@example.com',
      subject: 'oi',
      message: 'texto livre',
    });
    expect(r.status).toBe(202);
    expect((await login(u.email, u.password)).status).toBe(200);
    expect((await login(u.email, 'escolhida-pelo-cliente')).status).toBe(401);
    const [mail] = await mailsTo(u.email);
    await t.services.mailer.deliver(mail.id);
    const [sent] = sentTo(u.email);
    expect(sent.text).not.toContain('escolhida-pelo-cliente');
    expect(sent.text).not.toContain('texto livre');
    expect(sent.subject).toBe('Cota Verde: redefinição de senha');
    expect(sent.to).toEqual([u.email]);
  });

  test.each([[{}], [{ email: 'nao-e-email' }], [{ email: 42 }], [{ email: '' }]])('%j → 400 validation_error', async (body) => {
    const r = await requestReset(body);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'validation_error', message: 'Informe um e-mail válido.', details: expect.any(Array) });
  });

  test('still answers 202 when the queue is unavailable; the row waits for the sweep', async () => {
    const u = await createUser(t);
    const spy = jest.spyOn(t.services.mailer, 'dispatch').mockRejectedValueOnce(new Error('redis down'));
    try {
      const r = await requestReset({ email: u.email });
      expect(r.status).toBe(202);
      expect(r.body).toEqual({ ok: true, message: RESET_ACCEPTED_MESSAGE });
    } finally {
      spy.mockRestore();
    }
    const [mail] = await mailsTo(u.email);
    expect(mail.status).toBe('pending');
  });
});

describe('POST /api/auth/reset-password/confirm', () => {
  test('sets the new password, revokes existing sessions and is single-use', async () => {
    const u = await createUser(t);
    const other = await createUser(t);
    const loggedIn = await login(u.email, u.password);
    expect(loggedIn.status).toBe(200);
    const token = await resetToken(u.email);

    const r = await confirm({ token, password: 'nova-senha-123' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true });

    expect((await login(u.email, 'nova-senha-123')).status).toBe(200);
    expect((await login(u.email, u.password)).status).toBe(401);
    // every session that existed before is gone
    expect((await t.api('GET', '/api/me', { token: u.token })).status).toBe(401);
    expect((await t.api('GET', '/api/me', { token: loggedIn.body.token })).status).toBe(401);
    // other users are untouched
    expect((await t.api('GET', '/api/me', { token: other.token })).status).toBe(200);

    const again = await confirm({ token, password: 'outra-senha-456' });
    expect(again.status).toBe(400);
    expect(again.body).toEqual(INVALID_TOKEN);
    expect((await login(u.email, 'outra-senha-456')).status).toBe(401);

    const audit = await t.services.db('audit_log').where({ action: 'password_reset.completed', entity_id: String(u.user.id) });
    expect(audit).toHaveLength(1);
  });

  test('an expired link → 400 invalid_token, password unchanged', async () => {
    const u = await createUser(t);
    const token = await resetToken(u.email);
    await t.services
      .db('password_resets')
      .where({ token_hash: sha256(token) })
      .update({ expires_at: t.services.db.raw("now() - interval '1 second'") });
    const r = await confirm({ token, password: 'nova-senha-123' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual(INVALID_TOKEN);
    expect((await login(u.email, u.password)).status).toBe(200);
    expect((await t.api('GET', '/api/me', { token: u.token })).status).toBe(200);
  });

  test('a second request keeps the first link valid until one is used; using one kills the others', async () => {
    const u = await createUser(t);
    const first = await resetToken(u.email);
    const second = await resetToken(u.email);
    expect(first).not.toBe(second);
    const outstanding = await t.services.db('password_resets').where({ user_id: u.user.id }).whereNull('used_at');
    expect(outstanding).toHaveLength(2);

    const r = await confirm({ token: second, password: 'segunda-senha-1' });
    expect(r.status).toBe(200);
    const stale = await confirm({ token: first, password: 'primeira-senha-1' });
    expect(stale.status).toBe(400);
    expect(stale.body).toEqual(INVALID_TOKEN);
    expect((await login(u.email, 'segunda-senha-1')).status).toBe(200);
    expect((await login(u.email, 'primeira-senha-1')).status).toBe(401);
  });

  test('the older of two links also works (and then kills the newer one)', async () => {
    const u = await createUser(t);
    const first = await resetToken(u.email);
    const second = await resetToken(u.email);
    expect((await confirm({ token: first, password: 'primeira-senha-1' })).status).toBe(200);
    expect((await confirm({ token: second, password: 'segunda-senha-1' })).body).toEqual(INVALID_TOKEN);
    expect((await login(u.email, 'primeira-senha-1')).status).toBe(200);
  });

  test('two links confirmed at the same time: exactly one wins, the other is invalid_token (never a 500)', async () => {
    for (let round = 0; round < 3; round++) {
      const u = await createUser(t);
      const first = await resetToken(u.email);
      const second = await resetToken(u.email);
      const results = await Promise.all([
        confirm({ token: first, password: 'concorrente-a-1' }),
        confirm({ token: second, password: 'concorrente-b-1' }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
      expect(results.find((r) => r.status === 400)!.body).toEqual(INVALID_TOKEN);
      const winner = results[0].status === 200 ? 'concorrente-a-1' : 'concorrente-b-1';
      expect((await login(u.email, winner)).status).toBe(200);
    }
  });

  test('the same link confirmed twice at the same time succeeds once', async () => {
    const u = await createUser(t);
    const token = await resetToken(u.email);
    const results = await Promise.all([confirm({ token, password: 'mesma-senha-a1' }), confirm({ token, password: 'mesma-senha-b1' })]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
  });

  test("a link resets only its own user's password", async () => {
    const a = await createUser(t);
    const b = await createUser(t);
    const tokenA = await resetToken(a.email);
    const tokenB = await resetToken(b.email);
    expect((await confirm({ token: tokenA, password: 'senha-da-a-1' })).status).toBe(200);
    expect((await login(b.email, b.password)).status).toBe(200);
    expect((await confirm({ token: tokenB, password: 'senha-da-b-1' })).status).toBe(200);
    expect((await login(a.email, 'senha-da-a-1')).status).toBe(200);
  });

  test('an unknown, well-formed token → 400 invalid_token', async () => {
    const r = await confirm({ token: 'A'.repeat(43), password: 'nova-senha-123' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual(INVALID_TOKEN);
  });

  test.each([
    ['empty body', {}, 'Link inválido ou expirado.'],
    ['short token', { token: 'abc', password: 'nova-senha-123' }, 'Link inválido ou expirado.'],
    ['token of the wrong type', { token: 12345, password: 'nova-senha-123' }, 'Link inválido ou expirado.'],
    ['huge token', { token: 'x'.repeat(500), password: 'nova-senha-123' }, 'Link inválido ou expirado.'],
    ['missing password', { token: 'A'.repeat(43) }, 'A senha deve ter pelo menos 6 caracteres.'],
    ['short password', { token: 'A'.repeat(43), password: '12345' }, 'A senha deve ter pelo menos 6 caracteres.'],
    ['password of the wrong type', { token: 'A'.repeat(43), password: 123456 }, 'A senha deve ter pelo menos 6 caracteres.'],
  ])('%s → 400 validation_error', async (_why, body, message) => {
    const r = await confirm(body);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'validation_error', message, details: expect.any(Array) });
  });

  test('a short new password does not burn the link', async () => {
    const u = await createUser(t);
    const token = await resetToken(u.email);
    expect((await confirm({ token, password: '123' })).status).toBe(400);
    expect((await confirm({ token, password: 'agora-sim-123' })).status).toBe(200);
    expect((await login(u.email, 'agora-sim-123')).status).toBe(200);
  });
});

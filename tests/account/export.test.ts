import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { buyEbooks, makeProductWithDraw, reserve } from '../payments/fixtures';

/** GET /api/me/export: everything the store holds about the caller, as a JSON file (LGPD). */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
});
afterAll(() => t.close());

test("the caller's profile, consents, payments, numbers, vouchers, coupon ledger and sessions; nothing of anyone else; no secrets", async () => {
  const u = await createUser(t, { name: 'Helena Prado' });
  const other = await createUser(t, { name: 'Outra Pessoa' });
  await t.services
    .db('users')
    .where({ id: u.user.id })
    .update({ accepted_terms_at: new Date('2026-11-01T12:00:00Z') });
  const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
  const paid = await buyEbooks(t, u.token, product.id, 2, 500);
  await t.services.payments.approveSandbox(paid.paymentId, { via: 'cli' });
  const held = await reserve(t, u.token, draw.id, [42]);
  const consumed = await t.api('POST', '/api/vouchers/consume', { token: u.token, body: { reservationId: held.id, numbers: [42] } });
  expect(consumed.status).toBe(200);
  const theirs = await buyEbooks(t, other.token, product.id, 1, 500);

  const r = await t.api('GET', '/api/me/export', { token: u.token });
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(r.headers.get('content-disposition')).toBe('attachment; filename="cotaverde-meus-dados.json"');
  expect(r.headers.get('cache-control')).toBe('no-store');
  const d = r.body;
  expect(d.profile).toMatchObject({
    id: u.user.id,
    name: 'Helena Prado',
    email: u.email,
    cpf: u.user.cpf,
    phone: u.user.phone,
    birthdate: '1990-01-15',
  });
  expect(d.profile.coupon_code).toMatch(/^CV-/);
  expect(d.consents).toEqual({ terms_and_privacy_accepted_at: '2026-11-01T12:00:00.000Z' });
  expect(d.payments.map((p: { id: number }) => p.id)).toEqual([paid.paymentId]);
  expect(d.payments[0]).toMatchObject({ status: 'approved', amount_cents: 1000, quantity: 2 });
  expect(d.numbers.owned).toEqual([expect.objectContaining({ draw_id: draw.id, n: 42 })]);
  expect(d.numbers.sales).toEqual([expect.objectContaining({ draw_id: draw.id, n: 42, source: 'voucher' })]);
  expect(d.reservations.map((x: { id: number; status: string }) => [x.id, x.status])).toEqual([[held.id, 'consumed']]);
  expect(d.vouchers.balances).toEqual([expect.objectContaining({ infoproduct_id: product.id, balance: 1 })]);
  expect(d.vouchers.ledger.map((x: { reason: string; delta: number }) => [x.reason, x.delta])).toEqual([
    ['grant', 2],
    ['consume', -1],
  ]);
  expect(d.coupon).toMatchObject({ code: d.profile.coupon_code, balance_cents: 1000 });
  expect(d.coupon.ledger).toEqual([expect.objectContaining({ kind: 'credit', amount_cents: 1000, payment_id: paid.paymentId })]);
  expect(d.participations.map((p: { kind: string }) => p.kind)).toEqual(['voucher', 'ebook']);
  expect(d.sessions).toHaveLength(1);
  expect(d.sessions[0]).not.toHaveProperty('token_hash');

  // Nothing of the other user, and no secret of any kind.
  expect(r.text).not.toContain('Outra Pessoa');
  expect(r.text).not.toContain(other.email);
  expect(JSON.stringify(d.payments)).not.toContain(`"id":${theirs.paymentId},`);
  for (const secret of ['password_hash', 'token_hash', '$argon2']) expect(r.text).not.toContain(secret);
  // The QR picture is left out of the payment rows (its text, qr_code, is there).
  expect(d.payments[0]).not.toHaveProperty('qr_code_base64');
  expect(d.payments[0]).toHaveProperty('qr_code');
});

test('anonymous: 401; another user exports only themselves', async () => {
  expect((await t.api('GET', '/api/me/export')).status).toBe(401);
  const a = await createUser(t);
  const b = await createUser(t);
  const rb = await t.api('GET', '/api/me/export', { token: b.token });
  expect(rb.body.profile.id).toBe(b.user.id);
  expect(rb.text).not.toContain(a.email);
  expect(rb.body.payments).toEqual([]);
  // Each export is audited and shows up in the next one.
  const again = await t.api('GET', '/api/me/export', { token: b.token });
  expect(again.body.audit.map((a: { action: string }) => a.action)).toEqual(['account.exported']);
  expect(await t.services.db('audit_log').where({ action: 'account.exported', actor_user_id: b.user.id })).toHaveLength(2);
});

import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { startFakeMercadoPago, type FakeMercadoPago } from '../helpers/fake-mercadopago';
import {
  WEBHOOK_SECRET,
  balanceOf,
  buyEbooks,
  ledgerOf,
  ledgerSum,
  makeProductWithDraw,
  mercadoPagoEnv,
  paymentRow,
  reserve,
} from './fixtures';

/**
 * Idempotency under fire: one approval delivered many times at once through
 * every path (signed webhooks, the polling job's handler, status calls,
 * confirms) is fulfilled exactly once.
 */
let fake: FakeMercadoPago;
let t: TestContext;
beforeAll(async () => {
  fake = await startFakeMercadoPago({ realQr: false });
  t = await createTestContext({ env: mercadoPagoEnv(fake, { RATE_LIMIT_DISABLED: '1' }) });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const mpIdOf = async (paymentId: number) => Number((await paymentRow(t, paymentId)).provider_payment_id);

/** 50 webhooks + 50 poll handler runs + 50 status calls, all in flight together. */
async function fire(paymentId: number, mpId: number, token: string) {
  const webhooks = Array.from({ length: 50 }, (_, i) =>
    // Each a distinct, validly signed delivery (Mercado Pago retries with new request ids)…
    fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET, requestId: `retry-${mpId}-${i % 10}` }),
  );
  const polls = Array.from({ length: 50 }, () => t.services.payments.poll(paymentId));
  const statuses = Array.from({ length: 50 }, () => t.api('GET', `/api/payments/${paymentId}/status`, { token }));
  const [w, p, s] = await Promise.all([Promise.all(webhooks), Promise.all(polls), Promise.all(statuses)]);
  return { webhooks: w, polls: p, statuses: s };
}

test('an e-book approval delivered 150 times concurrently (webhook, poll, status) grants the vouchers once', async () => {
  const u = await createUser(t);
  const { product } = await makeProductWithDraw(t, { price_cents: 500 });
  const p = await buyEbooks(t, u.token, product.id, 4, 500);
  const mpId = await mpIdOf(p.paymentId);
  fake.setStatus(mpId, 'approved');

  const r = await fire(p.paymentId, mpId, u.token);
  expect(r.webhooks.map((x) => `${x.status} ${x.body.status}`)).toEqual(Array(50).fill('200 approved'));
  expect(r.polls).toEqual(Array(50).fill('approved'));
  for (const s of r.statuses) {
    expect(s.status).toBe(200);
    // A throttled status call may still read the pre-approval row; never anything else.
    expect(['pending', 'approved']).toContain(s.body.status);
  }

  const l = await ledgerOf(t, p.paymentId);
  expect(l.vouchers).toEqual([{ reason: 'grant', delta: 4, user_id: u.user.id, infoproduct_id: product.id }]);
  expect(l.fulfilments).toHaveLength(1);
  expect(l.fulfilments[0].result).toEqual({ vouchers: 4, infoproduct_id: product.id });
  expect(await balanceOf(t, u.user.id, product.id)).toBe(4);
  expect(await ledgerSum(t, u.user.id, product.id)).toBe(4);
  expect(
    await t.services.db('audit_log').where({ entity: 'payment', entity_id: String(p.paymentId), action: 'payment.approved' }),
  ).toHaveLength(1);
  expect(await paymentRow(t, p.paymentId)).toMatchObject({ status: 'approved', flagged_for_review: false });

  // Then 30 concurrent confirms: all 200 with the same answer, nothing more granted.
  const confirms = await Promise.all(
    Array.from({ length: 30 }, () =>
      t.api('POST', '/api/purchases/confirm', { token: u.token, body: { payment_id: p.paymentId, infoproduct_id: product.id } }),
    ),
  );
  expect(new Set(confirms.map((c) => `${c.status} ${c.body.vouchers_granted} ${c.body.remaining}`))).toEqual(new Set(['200 4 4']));
  expect(await balanceOf(t, u.user.id, product.id)).toBe(4);
  expect((await ledgerOf(t, p.paymentId)).vouchers).toHaveLength(1);
});

test('confirms racing the first approval (no webhook yet) ask the provider once and grant once', async () => {
  const u = await createUser(t);
  const { product } = await makeProductWithDraw(t, { price_cents: 500 });
  const p = await buyEbooks(t, u.token, product.id, 2, 500);
  const mpId = await mpIdOf(p.paymentId);
  fake.setStatus(mpId, 'approved');
  const gets = () => fake.count('GET', `/v1/payments/${mpId}`);
  const before = gets();
  const confirms = await Promise.all(
    Array.from({ length: 40 }, () => t.api('POST', '/api/purchases/confirm', { token: u.token, body: { payment_id: p.paymentId } })),
  );
  // One claim of the per-payment check: one call to the provider. Confirms that lost the claim
  // answer what the row said at that moment (approved, or still pending → 409, the client retries).
  expect(gets() - before).toBe(1);
  expect(confirms.filter((c) => c.status === 200).length).toBeGreaterThanOrEqual(1);
  for (const c of confirms) if (c.status !== 200) expect(c.body).toMatchObject({ error: 'payment_not_approved', status: 'pending' });
  expect(new Set(confirms.filter((c) => c.status === 200).map((c) => c.body.vouchers_granted))).toEqual(new Set([2]));
  // Afterwards every confirm answers 200, without asking the provider again.
  const again = await Promise.all(
    Array.from({ length: 10 }, () => t.api('POST', '/api/purchases/confirm', { token: u.token, body: { payment_id: p.paymentId } })),
  );
  expect(again.map((c) => c.status)).toEqual(Array(10).fill(200));
  expect(gets() - before).toBe(1);
  expect(await balanceOf(t, u.user.id, product.id)).toBe(2);
  const l = await ledgerOf(t, p.paymentId);
  expect(l.granted).toBe(2);
  expect(l.fulfilments).toHaveLength(1);
});

test('a reservation approval delivered 150 times concurrently sells its numbers once', async () => {
  const u = await createUser(t);
  const { draw } = await makeProductWithDraw(t, { price_cents: 500 });
  const res = await reserve(t, u.token, draw.id, [5, 6, 7]);
  const pix = await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: res.id } });
  expect(pix.status).toBe(201);
  const mpId = await mpIdOf(pix.body.paymentId);
  fake.setStatus(mpId, 'approved');
  const r = await fire(pix.body.paymentId, mpId, u.token);
  expect(r.webhooks.map((x) => x.status)).toEqual(Array(50).fill(200));
  expect(r.polls).toEqual(Array(50).fill('approved'));
  expect(r.statuses.every((s) => s.status === 200)).toBe(true);
  const l = await ledgerOf(t, pix.body.paymentId);
  expect(l.sales.map((s) => [s.n, s.user_id])).toEqual([
    [5, u.user.id],
    [6, u.user.id],
    [7, u.user.id],
  ]);
  expect(l.fulfilments).toHaveLength(1);
  expect(l.vouchers).toEqual([]);
  expect(await paymentRow(t, pix.body.paymentId)).toMatchObject({ status: 'approved', flagged_for_review: false });
  expect((await t.services.db('reservations').where({ id: res.id }).first()).status).toBe('paid');
});

test('concurrent PIX requests for one reservation create one payment and answer the same code', async () => {
  const u = await createUser(t);
  const { draw } = await makeProductWithDraw(t, { price_cents: 500 });
  const res = await reserve(t, u.token, draw.id, [50, 51]);
  const answers = await Promise.all(
    Array.from({ length: 10 }, () => t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: res.id } })),
  );
  expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
  expect(new Set(answers.map((a) => a.body.paymentId)).size).toBe(1);
  expect(new Set(answers.map((a) => a.body.copy_paste_code)).size).toBe(1);
  const rows = await t.services.db('payments').where({ reservation_id: res.id });
  expect(rows.map((r) => r.status)).toEqual(['pending']);
  expect([...fake.payments.values()].filter((p) => p.external_reference === String(rows[0].id))).toHaveLength(1);
});

test('when the PIX being created for a reservation fails, its waiters get 409 (never a second live code) and a retry gets a fresh one', async () => {
  const u = await createUser(t);
  const { draw } = await makeProductWithDraw(t, { price_cents: 500 });
  const res = await reserve(t, u.token, draw.id, [60]);
  fake.failNext(1, 503, 'POST');
  const answers = await Promise.all(
    Array.from({ length: 4 }, () => t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: res.id } })),
  );
  // Requests that waited on the failed creation answer 409; later ones may create the next one.
  const failed = answers.filter((a) => a.status === 409);
  const ok = answers.filter((a) => a.status === 201);
  expect(failed.length + ok.length).toBe(4);
  expect(failed.length).toBeGreaterThanOrEqual(1);
  expect(failed.every((a) => a.body.error === 'payment_provider_unavailable')).toBe(true);
  expect(new Set(ok.map((a) => a.body.paymentId)).size).toBeLessThanOrEqual(1);
  const retry = await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: res.id } });
  expect(retry.status).toBe(201);
  if (ok.length) expect(retry.body.paymentId).toBe(ok[0].body.paymentId);
  const rows = await t.services.db('payments').where({ reservation_id: res.id }).orderBy('id');
  expect(rows.map((r) => r.status)).toEqual(['cancelled', 'pending']);
});

test('a pending payment left without PIX data by a crashed request does not block the reservation for long', async () => {
  const u = await createUser(t);
  const { draw } = await makeProductWithDraw(t, { price_cents: 500 });
  const res = await reserve(t, u.token, draw.id, [61]);
  const [orphan] = await t.services
    .db('payments')
    .insert({
      user_id: u.user.id,
      kind: 'reservation',
      method: 'pix',
      provider: 'mercadopago',
      status: 'pending',
      amount_cents: 500,
      draw_id: draw.id,
      reservation_id: res.id,
      numbers: [61],
      infoproduct_id: draw.infoproduct_id,
      expires_at: t.services.db.raw(`now() + interval '29 minutes'`),
      created_at: t.services.db.raw(`now() - interval '1 minute'`),
    })
    .returning('*');
  const r = await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: res.id } });
  expect(r.status).toBe(201);
  expect(r.body.paymentId).not.toBe(orphan.id);
  expect(r.body.copy_paste_code).toEqual(expect.any(String));
});

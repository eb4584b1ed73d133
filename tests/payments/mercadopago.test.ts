import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { startFakeMercadoPago, type FakeMercadoPago } from '../helpers/fake-mercadopago';
import { createMercadoPagoProvider, mapMercadoPagoStatus, signWebhook, verifyWebhookSignature } from '../../src/payments/providers/mercadopago';
import { hasValidCrc } from '../../src/payments/brcode';
import { WEBHOOK_SECRET, balanceOf, buyEbooks, ledgerOf, ledgerSum, letThrottlePass, makeProductWithDraw, mercadoPagoEnv, paymentRow, reserve } from './fixtures';

/**
 * The Mercado Pago provider against a local fake of its HTTP API: PIX
 * creation, status by re-fetching, and webhooks (signature, replay, stale,
 * unknown payments), refunds and chargebacks.
 */
let fake: FakeMercadoPago;
let t: TestContext;
beforeAll(async () => {
  fake = await startFakeMercadoPago();
  t = await createTestContext({ env: mercadoPagoEnv(fake, { RATE_LIMIT_DISABLED: '1' }) });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const mpIdOf = async (paymentId: number) => Number((await paymentRow(t, paymentId)).provider_payment_id);

async function newPurchase(quantity = 3, unit = 500) {
  const u = await createUser(t);
  const { product, draw } = await makeProductWithDraw(t, { price_cents: unit });
  const p = await buyEbooks(t, u.token, product.id, quantity, unit);
  return { u, product, draw, p, mpId: await mpIdOf(p.paymentId) };
}

describe('PIX creation', () => {
  test('POST /v1/payments with Bearer token, idempotency key from our id, expiry, external_reference, notification_url', async () => {
    const u = await createUser(t, { name: 'Maria Clara de Souza' });
    const { product } = await makeProductWithDraw(t, { price_cents: 725 });
    const before = fake.requests.length;
    const p = await buyEbooks(t, u.token, product.id, 2, 725);
    const calls = fake.requests.slice(before).filter((r) => r.method === 'POST');
    expect(calls).toHaveLength(1);
    const req = calls[0];
    expect(req.path).toBe('/v1/payments');
    expect(req.status).toBe(201);
    expect(req.headers.authorization).toBe(`Bearer ${fake.token}`);
    expect(req.headers['x-idempotency-key']).toBe(`cotaverde-payment-${p.paymentId}`);
    const row = await paymentRow(t, p.paymentId);
    expect(req.body).toMatchObject({
      transaction_amount: 14.5,
      payment_method_id: 'pix',
      external_reference: String(p.paymentId),
      notification_url: 'http://cotaverde.test/api/webhooks/mercadopago',
      payer: { email: u.email, first_name: 'Maria', last_name: 'Clara de Souza', identification: { type: 'CPF', number: u.user.cpf } },
    });
    expect((req.body as any).date_of_expiration).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    expect(new Date((req.body as any).date_of_expiration).getTime()).toBe(row.expires_at.getTime());
    // What the app answers and stores is Mercado Pago's PIX data.
    const mp = fake.payments.get(Number(row.provider_payment_id))!;
    expect(row.provider).toBe('mercadopago');
    expect(p.copy_paste_code).toBe(mp.point_of_interaction.transaction_data.qr_code);
    expect(p.qr_code_base64).toBe(mp.point_of_interaction.transaction_data.qr_code_base64);
    expect(row.txid).toBe(mp.point_of_interaction.transaction_data.transaction_id);
    expect(hasValidCrc(p.copy_paste_code)).toBe(true);
    expect(p).toMatchObject({ amount: 14.5, status: 'pending' });
  });

  test('a retried create with the same payment id is the same charge at Mercado Pago (X-Idempotency-Key)', async () => {
    const provider = createMercadoPagoProvider({ apiUrl: fake.url, accessToken: fake.token, notificationUrl: 'http://x/api/webhooks/mercadopago' });
    const input = { paymentId: 424242, amountCents: 1000, description: 'teste', expiresAt: new Date(Date.now() + 600_000), payer: { email: 'a@b.c', name: 'A', cpf: null } };
    const [a, b] = await Promise.all([provider.createPix(input), provider.createPix(input)]);
    const c = await provider.createPix(input);
    expect(new Set([a.providerPaymentId, b.providerPaymentId, c.providerPaymentId]).size).toBe(1);
    expect(c.copyPasteCode).toBe(a.copyPasteCode);
    expect([...fake.payments.values()].filter((p) => p.external_reference === '424242')).toHaveLength(1);
    const other = await provider.createPix({ ...input, paymentId: 424243 });
    expect(other.providerPaymentId).not.toBe(a.providerPaymentId);
  });

  test('Mercado Pago refusing (bad token) or failing (5xx) → 409 payment_provider_unavailable, payment cancelled, no 500', async () => {
    const wrong = await createTestContext({ env: mercadoPagoEnv(fake, { MERCADOPAGO_ACCESS_TOKEN: 'TEST-wrong-token' }) });
    try {
      const u = await createUser(wrong);
      const product = (await wrong.services.db('infoproducts').insert({ sku: 'MP-WRONG', title: 'x', price_cents: 500 }).returning('*'))[0];
      const r = await wrong.api('POST', '/api/payments/infoproduct', { token: u.token, body: { infoproduct_id: product.id, quantity: 1, amount_cents_total: 500 } });
      expect(r.status).toBe(409);
      expect(r.body.error).toBe('payment_provider_unavailable');
      const rows = await wrong.services.db('payments').where({ user_id: u.user.id });
      expect(rows.map((x) => x.status)).toEqual(['cancelled']);
    } finally {
      await wrong.close();
    }
    const u = await createUser(t);
    const { product } = await makeProductWithDraw(t, { price_cents: 500 });
    fake.failNext(1, 503, 'POST');
    const r = await t.api('POST', '/api/payments/infoproduct', { token: u.token, body: { infoproduct_id: product.id, quantity: 1, amount_cents_total: 500 } });
    expect(r.status).toBe(409);
    expect(r.body.error).toBe('payment_provider_unavailable');
    expect((await t.services.db('payments').where({ user_id: u.user.id })).map((x) => x.status)).toEqual(['cancelled']);
  });

  test('status mapping: cancelled past date_of_expiration is expired; in_process is pending', () => {
    expect(mapMercadoPagoStatus('cancelled', new Date(Date.now() - 1000).toISOString())).toBe('expired');
    expect(mapMercadoPagoStatus('cancelled', new Date(Date.now() + 60_000).toISOString())).toBe('cancelled');
    expect(mapMercadoPagoStatus('in_process')).toBe('pending');
    expect(mapMercadoPagoStatus('charged_back')).toBe('charged_back');
    expect(mapMercadoPagoStatus('something_new')).toBe('pending');
  });
});

describe('status by re-fetching', () => {
  test('GET status re-fetches the payment from Mercado Pago; approval grants the vouchers', async () => {
    const { u, product, p, mpId } = await newPurchase(3);
    const gets = () => fake.count('GET', `/v1/payments/${mpId}`);
    expect((await t.api('GET', `/api/payments/${p.paymentId}/status`, { token: u.token })).body.status).toBe('pending');
    expect(gets()).toBe(1);
    fake.setStatus(mpId, 'approved');
    // Throttled: a second call within the window does not ask again.
    expect((await t.api('GET', `/api/payments/${p.paymentId}/status`, { token: u.token })).body.status).toBe('pending');
    expect(gets()).toBe(1);
    // confirm keeps the same per-payment throttle: no extra call to the provider.
    const early = await t.api('POST', '/api/purchases/confirm', { token: u.token, body: { payment_id: p.paymentId, infoproduct_id: product.id } });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ error: 'payment_not_approved', status: 'pending' });
    expect(gets()).toBe(1);
    // Once the throttle window has passed, confirm asks.
    await letThrottlePass(t, p.paymentId);
    const c = await t.api('POST', '/api/purchases/confirm', { token: u.token, body: { payment_id: p.paymentId, infoproduct_id: product.id } });
    expect(c.status).toBe(200);
    expect(c.body.vouchers_granted).toBe(3);
    expect(gets()).toBe(2);
    expect(await balanceOf(t, u.user.id, product.id)).toBe(3);
    const row = await paymentRow(t, p.paymentId);
    expect(row.paid_at.toISOString()).toBe(fake.payments.get(mpId)!.date_approved);
  });
});

describe('POST /api/webhooks/mercadopago', () => {
  test('a signed notification: verified, re-fetched, approved and fulfilled; the same notification replayed → still once', async () => {
    const { u, product, p, mpId } = await newPurchase(3);
    fake.setStatus(mpId, 'approved');
    const getsBefore = fake.count('GET', `/v1/payments/${mpId}`);
    const n = fake.notification(t.url, mpId, { secret: WEBHOOK_SECRET });
    const send = async () => {
      const res = await fetch(n.url, n.init);
      return { status: res.status, body: await res.json() };
    };
    const first = await send();
    expect(first).toEqual({ status: 200, body: { received: true, status: 'approved' } });
    expect(fake.count('GET', `/v1/payments/${mpId}`)).toBe(getsBefore + 1);
    const replay = await send();
    expect(replay).toEqual({ status: 200, body: { received: true, status: 'approved' } });
    const replay2 = await fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET });
    expect(replay2.status).toBe(200);
    expect(await balanceOf(t, u.user.id, product.id)).toBe(3);
    const l = await ledgerOf(t, p.paymentId);
    expect(l.vouchers).toEqual([{ reason: 'grant', delta: 3, user_id: u.user.id, infoproduct_id: product.id }]);
    expect(l.fulfilments).toHaveLength(1);
    expect(await t.services.db('audit_log').where({ entity: 'payment', entity_id: String(p.paymentId), action: 'payment.approved' })).toHaveLength(1);
  });

  test.each([
    ['a tampered signature', { tamper: true }],
    ['a signature made with another secret', { secret: 'not-the-secret' }],
    ['a signature made for another payment', { signedId: '999' }],
    ['no signature at all', { unsigned: true }],
    ['a stale timestamp (11 minutes old)', { ts: Math.floor(Date.now() / 1000) - 11 * 60 }],
    ['a timestamp 11 minutes in the future', { ts: Math.floor(Date.now() / 1000) + 11 * 60 }],
  ])('%s → 401 invalid_signature and nothing changes (not even a fetch)', async (_label, o) => {
    const { u, product, p, mpId } = await newPurchase(2);
    fake.setStatus(mpId, 'approved');
    const getsBefore = fake.count('GET', `/v1/payments/${mpId}`);
    const r = await fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET, ...o });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ error: 'invalid_signature' });
    expect(fake.count('GET', `/v1/payments/${mpId}`)).toBe(getsBefore);
    expect((await paymentRow(t, p.paymentId)).status).toBe('pending');
    expect(await balanceOf(t, u.user.id, product.id)).toBeNull();
    expect((await ledgerOf(t, p.paymentId)).fulfilments).toHaveLength(0);
  });

  test('a malformed x-signature header → 401', async () => {
    for (const sig of ['garbage', 'ts=abc,v1=zz', `ts=${Math.floor(Date.now() / 1000)}`, `v1=${'a'.repeat(64)}`]) {
      const res = await fetch(`${t.url}/api/webhooks/mercadopago?data.id=123&type=payment`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-signature': sig, 'x-request-id': 'req-1' },
        body: JSON.stringify({ type: 'payment', data: { id: '123' } }),
      });
      expect(res.status).toBe(401);
    }
  });

  test('a timestamp in milliseconds (within the window) is accepted', async () => {
    const { u, product, mpId } = await newPurchase(1);
    fake.setStatus(mpId, 'approved');
    const r = await fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET, ts: Date.now() });
    expect(r).toEqual({ status: 200, body: { received: true, status: 'approved' } });
    expect(await balanceOf(t, u.user.id, product.id)).toBe(1);
  });

  test('an unknown payment id (404 at Mercado Pago) → 200 ignored; one of Mercado Pago that is not ours → 200 ignored', async () => {
    const r = await fake.notify(t.url, 777000111, { secret: WEBHOOK_SECRET });
    expect(r).toEqual({ status: 200, body: { received: true, ignored: 'unknown_payment' } });
    // Created at Mercado Pago by someone else (another integration of the account).
    const res = await fetch(`${fake.url}/v1/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ transaction_amount: 10, payment_method_id: 'pix', payer: { email: 'x@y.z' }, external_reference: '1' }),
    });
    const foreign = (await res.json()) as { id: number };
    fake.setStatus(foreign.id, 'approved');
    const r2 = await fake.notify(t.url, foreign.id, { secret: WEBHOOK_SECRET });
    expect(r2).toEqual({ status: 200, body: { received: true, ignored: 'unknown_payment' } });
    // external_reference "1" is not trusted: payment #1 (if any) is untouched.
    expect(await t.services.db('payment_fulfilments').where({ payment_id: 1 })).toHaveLength(0);
  });

  test('another notification type → 200 ignored without fetching; a signed but invalid data.id → 400', async () => {
    const before = fake.count('GET', '/v1/');
    const r = await fake.notify(t.url, 5555, { secret: WEBHOOK_SECRET, type: 'merchant_order' });
    expect(r).toEqual({ status: 200, body: { received: true, ignored: 'type' } });
    expect(fake.count('GET', '/v1/')).toBe(before);
    const bad = await fake.notify(t.url, 'a b;c', { secret: WEBHOOK_SECRET });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('validation_error');
  });

  test('Mercado Pago unavailable while re-fetching → 503 (so it retries); the retry fulfils once', async () => {
    const { u, product, mpId } = await newPurchase(2);
    fake.setStatus(mpId, 'approved');
    fake.failNext(1, 500, 'GET');
    const r = await fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET });
    expect(r.status).toBe(503);
    expect(await balanceOf(t, u.user.id, product.id)).toBeNull();
    const again = await fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET });
    expect(again.body).toEqual({ received: true, status: 'approved' });
    expect(await balanceOf(t, u.user.id, product.id)).toBe(2);
  });

  test('with the sandbox provider the webhook does not exist (404)', async () => {
    const sandbox = await createTestContext();
    try {
      const n = fake.notification(sandbox.url, 123, { secret: WEBHOOK_SECRET });
      const res = await fetch(n.url, n.init);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: string }).error).toBe('not_found');
    } finally {
      await sandbox.close();
    }
  });

  test('the admin sandbox approval does not exist with Mercado Pago (409 sandbox_inactive)', async () => {
    const { p } = await newPurchase(1);
    const admin = await createUser(t, { admin: true });
    const r = await t.api('POST', `/api/admin/payments/${p.paymentId}/approve`, { token: admin.token });
    expect(r.status).toBe(409);
    expect(r.body.error).toBe('sandbox_inactive');
    expect((await paymentRow(t, p.paymentId)).status).toBe('pending');
  });
});

describe('refunds and chargebacks', () => {
  test('a refund notified by webhook revokes the unused vouchers once and flags the payment', async () => {
    const { u, product, draw, p, mpId } = await newPurchase(3);
    fake.setStatus(mpId, 'approved');
    await fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET });
    // One voucher is used on a number.
    const res = await reserve(t, u.token, draw.id, [42]);
    expect((await t.api('POST', '/api/vouchers/consume', { token: u.token, body: { reservationId: res.id, numbers: [42] } })).status).toBe(200);
    expect(await balanceOf(t, u.user.id, product.id)).toBe(2);

    fake.setStatus(mpId, 'refunded');
    const r = await fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET });
    expect(r.body).toEqual({ received: true, status: 'refunded' });
    await fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET });
    const row = await paymentRow(t, p.paymentId);
    expect(row).toMatchObject({ status: 'refunded', flagged_for_review: true });
    expect(row.review_reason).toMatch(/estornado/);
    expect(await balanceOf(t, u.user.id, product.id)).toBe(0);
    const l = await ledgerOf(t, p.paymentId);
    expect(l.granted).toBe(3);
    expect(l.revoked).toBe(2);
    expect(await ledgerSum(t, u.user.id, product.id)).toBe(0);
    // The number picked with one of its vouchers goes back to the board (the draw is open).
    expect((await t.services.db('draw_numbers').where({ draw_id: draw.id, n: 42 }).first()).owner_user_id).toBeNull();
    expect(row.review_reason).toMatch(new RegExp(`números 42 do sorteio #${draw.id} liberados`));
    // Refunded is final: a later "approved" does not grant again.
    fake.setStatus(mpId, 'approved');
    expect((await fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET })).body.status).toBe('refunded');
    expect(await balanceOf(t, u.user.id, product.id)).toBe(0);
  });

  test('a chargeback by webhook flags the payment and revokes what is left', async () => {
    const { u, product, p, mpId } = await newPurchase(2);
    fake.setStatus(mpId, 'approved');
    await fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET });
    fake.setStatus(mpId, 'charged_back');
    expect((await fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET })).body.status).toBe('charged_back');
    expect(await paymentRow(t, p.paymentId)).toMatchObject({ status: 'charged_back', flagged_for_review: true });
    expect(await balanceOf(t, u.user.id, product.id)).toBe(0);
    expect((await ledgerOf(t, p.paymentId)).revoked).toBe(2);
  });
});

describe('signature helpers', () => {
  test('signWebhook and verifyWebhookSignature agree on Mercado Pago\'s manifest', () => {
    const ts = 1_704_908_010;
    const sig = signWebhook('s3cr3t', '123456', 'req-abc', ts);
    expect(sig).toMatch(/^ts=1704908010,v1=[0-9a-f]{64}$/);
    const now = ts * 1000;
    expect(verifyWebhookSignature({ xSignature: sig, xRequestId: 'req-abc', dataId: '123456', secret: 's3cr3t', maxAgeMs: 600_000, now })).toEqual({ ok: true, ts: now });
    expect(verifyWebhookSignature({ xSignature: sig, xRequestId: 'req-abd', dataId: '123456', secret: 's3cr3t', now })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyWebhookSignature({ xSignature: sig, xRequestId: 'req-abc', dataId: '123456', secret: 's3cr3t', maxAgeMs: 600_000, now: now + 601_000 })).toEqual({ ok: false, reason: 'stale_signature' });
    // Alphanumeric ids are signed lower-cased.
    expect(signWebhook('k', 'ABC123', 'r', 1)).toBe(signWebhook('k', 'abc123', 'r', 1));
  });
});

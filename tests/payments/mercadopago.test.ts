import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { startFakeMercadoPago, type FakeMercadoPago } from '../helpers/fake-mercadopago';
import {
  createMercadoPagoProvider,
  mapMercadoPagoStatus,
  signWebhook,
  verifyWebhookSignature,
} from '../../src/payments/providers/mercadopago';
import { hasValidCrc } from '../../src/payments/brcode';
import { loadConfig } from '../../src/platform/config';
import {
  WEBHOOK_SECRET,
  balanceOf,
  buyEbooks,
  ledgerOf,
  ledgerSum,
  letThrottlePass,
  makeProductWithDraw,
  mercadoPagoEnv,
  paymentRow,
  reserve,
} from './fixtures';

/**
 * The Mercado Pago provider against the strict fake of its HTTP API: PIX creation (expiry,
 * idempotency), status by re-fetching, notifications (every call a hint: signed or not, webhook
 * or IPN, any topic), refunds and chargebacks.
 */
let fake: FakeMercadoPago;
let t: TestContext;
let installation: string;
beforeAll(async () => {
  fake = await startFakeMercadoPago();
  t = await createTestContext({ env: mercadoPagoEnv(fake, { RATE_LIMIT_DISABLED: '1' }) });
  installation = (await t.services.db('installation').first('id')).id;
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
  test('POST /v1/payments with Bearer token, idempotency key from installation and our id, expiry, external_reference, notification_url', async () => {
    const u = await createUser(t, { name: 'Maria Clara de Souza' });
    const { product } = await makeProductWithDraw(t, { price_cents: 725 });
    const before = fake.requests.length;
    const sentAfter = Date.now();
    const p = await buyEbooks(t, u.token, product.id, 2, 725);
    const calls = fake.requests.slice(before).filter((r) => r.method === 'POST');
    expect(calls).toHaveLength(1);
    const req = calls[0];
    expect(req.path).toBe('/v1/payments');
    expect(req.status).toBe(201);
    expect(req.headers.authorization).toBe(`Bearer ${fake.token}`);
    expect(req.headers['x-idempotency-key']).toBe(`${installation}-cotaverde-payment-${p.paymentId}`);
    expect(installation).toMatch(/^[0-9a-f-]{36}$/);
    const row = await paymentRow(t, p.paymentId);
    expect(req.body).toMatchObject({
      transaction_amount: 14.5,
      payment_method_id: 'pix',
      external_reference: String(p.paymentId),
      notification_url: 'http://cotaverde.test/api/webhooks/mercadopago?source_news=webhooks',
      payer: { email: u.email, first_name: 'Maria', last_name: 'Clara de Souza', identification: { type: 'CPF', number: u.user.cpf } },
    });
    expect((req.body as any).date_of_expiration).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    // PIX_EXPIRY_MINUTES (35 by default with Mercado Pago) counted when the request leaves, and our
    // payment ends with Mercado Pago's code, never before it.
    const mpExpiry = new Date((req.body as any).date_of_expiration).getTime();
    expect(mpExpiry).toBeGreaterThanOrEqual(sentAfter + 35 * 60_000);
    expect(row.expires_at.getTime()).toBe(mpExpiry);
    expect(p.expires_at).toBe(row.expires_at.toISOString());
    // What the app answers and stores is Mercado Pago's PIX data.
    const mp = fake.payments.get(Number(row.provider_payment_id))!;
    if (!mp.point_of_interaction) throw new Error('no PIX data');
    expect(row.provider).toBe('mercadopago');
    expect(p.copy_paste_code).toBe(mp.point_of_interaction.transaction_data.qr_code);
    expect(p.qr_code_base64).toBe(mp.point_of_interaction.transaction_data.qr_code_base64);
    expect(row.txid).toBe(mp.point_of_interaction.transaction_data.transaction_id);
    expect(hasValidCrc(p.copy_paste_code)).toBe(true);
    expect(p).toMatchObject({ amount: 14.5, status: 'pending' });
  });

  test('a retried create with the same payment id is the same charge at Mercado Pago (X-Idempotency-Key)', async () => {
    const provider = createMercadoPagoProvider({
      apiUrl: fake.url,
      accessToken: fake.token,
      notificationUrl: 'http://x/api/webhooks/mercadopago',
      idempotencyPrefix: async () => 'inst-a',
    });
    // 10 minutes asked: the provider sends Mercado Pago's minimum plus its margin instead.
    const input = {
      paymentId: 424242,
      amountCents: 1000,
      description: 'teste',
      expiresInMinutes: 10,
      payer: { email: 'a@b.c', name: 'A', cpf: null },
    };
    const [a, b] = await Promise.all([provider.createPix(input), provider.createPix(input)]);
    const c = await provider.createPix(input);
    expect(new Set([a.providerPaymentId, b.providerPaymentId, c.providerPaymentId]).size).toBe(1);
    expect(c.copyPasteCode).toBe(a.copyPasteCode);
    expect([...fake.payments.values()].filter((p) => p.external_reference === '424242')).toHaveLength(1);
    const other = await provider.createPix({ ...input, paymentId: 424243 });
    expect(other.providerPaymentId).not.toBe(a.providerPaymentId);
    expect(a.expiresAt.getTime()).toBeGreaterThan(Date.now() + 30 * 60_000);
    // Another installation (a reset database, a second store) on the same account: another charge.
    const elsewhere = createMercadoPagoProvider({
      apiUrl: fake.url,
      accessToken: fake.token,
      notificationUrl: 'http://x/api/webhooks/mercadopago',
      idempotencyPrefix: async () => 'inst-b',
    });
    expect((await elsewhere.createPix(input)).providerPaymentId).not.toBe(a.providerPaymentId);
  });

  test('the fake refuses what Mercado Pago refuses: PIX under 30 minutes or over 30 days, no X-Idempotency-Key, card_id without token, a bad token', async () => {
    const post = (body: unknown, headers: Record<string, string> = { 'x-idempotency-key': `k-${Math.random()}` }, token = fake.token) =>
      fetch(`${fake.url}/v1/payments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const pix = (minutes: number) => ({
      transaction_amount: 1,
      payment_method_id: 'pix',
      payer: { email: 'a@b.c' },
      date_of_expiration: new Date(Date.now() + minutes * 60_000).toISOString(),
    });
    expect((await post(pix(29.9))).status).toBe(400);
    expect((await post(pix(30 * 24 * 60 + 1))).status).toBe(400);
    expect((await post(pix(31))).status).toBe(201);
    expect((await post(pix(31), {})).body.message).toMatch(/X-Idempotency-Key/);
    const cardId = await post({
      transaction_amount: 1,
      card_id: '123',
      installments: 1,
      payment_method_id: 'visa',
      payer: { type: 'customer', id: 'x' },
    });
    expect(cardId).toMatchObject({ status: 400, body: { message: 'Invalid card_token_id', cause: [{ code: 3003 }] } });
    expect((await post(pix(31), undefined, 'TEST-wrong')).status).toBe(401);
    // A card token serves one payment.
    const tok = fake.cardToken('4111111111111111');
    const card = { transaction_amount: 1, token: tok, installments: 1, payment_method_id: 'visa', payer: { email: 'a@b.c' } };
    expect((await post(card)).status).toBe(201);
    expect((await post(card)).body.cause[0].code).toBe(3003);
  });

  test('config: PIX_EXPIRY_MINUTES under 31 is refused at load with Mercado Pago; 35 by default', () => {
    const env = {
      DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/x',
      REDIS_URL: 'redis://127.0.0.1:6379',
      PAYMENT_PROVIDER: 'mercadopago',
      MERCADOPAGO_ACCESS_TOKEN: 'a',
      MERCADOPAGO_WEBHOOK_SECRET: 'b',
    };
    expect(() => loadConfig({ ...env, PIX_EXPIRY_MINUTES: '30' })).toThrow(/PIX_EXPIRY_MINUTES must be at least 31/);
    expect(loadConfig({ ...env, PIX_EXPIRY_MINUTES: '31' }).payments.pix.expiryMinutes).toBe(31);
    expect(loadConfig(env).payments.pix.expiryMinutes).toBe(35);
    expect(loadConfig({ ...env, PAYMENT_PROVIDER: 'sandbox', PIX_EXPIRY_MINUTES: '5' }).payments.pix.expiryMinutes).toBe(5);
  });

  test("a reservation PIX: the hold lasts at least as long as Mercado Pago's code", async () => {
    const u = await createUser(t);
    const { draw } = await makeProductWithDraw(t, { price_cents: 200 });
    const res = await reserve(t, u.token, draw.id, [11, 12]);
    const r = await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: res.id } });
    expect(r.status).toBe(201);
    const row = await paymentRow(t, r.body.paymentId);
    const mp = fake.payments.get(Number(row.provider_payment_id))!;
    const hold = await t.services.db('reservations').where({ id: res.id }).first();
    expect(hold.expires_at.getTime()).toBeGreaterThanOrEqual(new Date(mp.date_of_expiration!).getTime());
    expect(row.expires_at.getTime()).toBe(new Date(mp.date_of_expiration!).getTime());
  });

  test('Mercado Pago refusing (bad token) or failing (5xx) → 409 payment_provider_unavailable, payment cancelled, no 500', async () => {
    const wrong = await createTestContext({ env: mercadoPagoEnv(fake, { MERCADOPAGO_ACCESS_TOKEN: 'TEST-wrong-token' }) });
    try {
      const u = await createUser(wrong);
      const product = (await wrong.services.db('infoproducts').insert({ sku: 'MP-WRONG', title: 'x', price_cents: 500 }).returning('*'))[0];
      const r = await wrong.api('POST', '/api/payments/infoproduct', {
        token: u.token,
        body: { infoproduct_id: product.id, quantity: 1, amount_cents_total: 500 },
      });
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
    const r = await t.api('POST', '/api/payments/infoproduct', {
      token: u.token,
      body: { infoproduct_id: product.id, quantity: 1, amount_cents_total: 500 },
    });
    expect(r.status).toBe(409);
    expect(r.body.error).toBe('payment_provider_unavailable');
    expect((await t.services.db('payments').where({ user_id: u.user.id })).map((x) => x.status)).toEqual(['cancelled']);
  });

  test('status mapping: cancelled past date_of_expiration is expired; in_process is pending; authorized and in_mediation are their own', () => {
    expect(mapMercadoPagoStatus('cancelled', new Date(Date.now() - 1000).toISOString())).toBe('expired');
    expect(mapMercadoPagoStatus('cancelled', new Date(Date.now() + 60_000).toISOString())).toBe('cancelled');
    expect(mapMercadoPagoStatus('in_process')).toBe('pending');
    expect(mapMercadoPagoStatus('authorized')).toBe('authorized');
    expect(mapMercadoPagoStatus('in_mediation')).toBe('in_mediation');
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
    const early = await t.api('POST', '/api/purchases/confirm', {
      token: u.token,
      body: { payment_id: p.paymentId, infoproduct_id: product.id },
    });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ error: 'payment_not_approved', status: 'pending' });
    expect(gets()).toBe(1);
    // Once the throttle window has passed, confirm asks.
    await letThrottlePass(t, p.paymentId);
    const c = await t.api('POST', '/api/purchases/confirm', {
      token: u.token,
      body: { payment_id: p.paymentId, infoproduct_id: product.id },
    });
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
    expect(
      await t.services.db('audit_log').where({ entity: 'payment', entity_id: String(p.paymentId), action: 'payment.approved' }),
    ).toHaveLength(1);
  });

  test.each([
    ['a tampered signature', { tamper: true }],
    ['a signature made with another secret', { secret: 'not-the-secret' }],
    ['a signature made for another payment', { signedId: '999' }],
    ['no signature at all', { unsigned: true }],
    ['a stale timestamp (a redelivery 11 minutes later)', { ts: Math.floor(Date.now() / 1000) - 11 * 60 }],
    ['a timestamp 11 minutes in the future', { ts: Math.floor(Date.now() / 1000) + 11 * 60 }],
    ['the IPN format (?topic=payment&id=…)', { format: 'ipn' as const }],
  ])('%s → 200: only a hint, the payment is re-fetched and what Mercado Pago says is applied', async (_label, o) => {
    const { u, product, p, mpId } = await newPurchase(2);
    const getsBefore = fake.count('GET', `/v1/payments/${mpId}`);
    // Mercado Pago says pending: a forged "approved" call changes nothing.
    const r0 = await fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET, ...o });
    expect(r0).toEqual({ status: 200, body: { received: true, status: 'pending' } });
    expect(fake.count('GET', `/v1/payments/${mpId}`)).toBe(getsBefore + 1);
    expect(await balanceOf(t, u.user.id, product.id)).toBeNull();
    fake.setStatus(mpId, 'approved');
    const r = await fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET, ...o });
    expect(r).toEqual({ status: 200, body: { received: true, status: 'approved' } });
    expect((await paymentRow(t, p.paymentId)).status).toBe('approved');
    expect(await balanceOf(t, u.user.id, product.id)).toBe(2);
    expect((await ledgerOf(t, p.paymentId)).fulfilments).toHaveLength(1);
  });

  test('a malformed x-signature header → 200, a hint like any other (here about no payment of ours)', async () => {
    for (const sig of ['garbage', 'ts=abc,v1=zz', `ts=${Math.floor(Date.now() / 1000)}`, `v1=${'a'.repeat(64)}`]) {
      const res = await fetch(`${t.url}/api/webhooks/mercadopago?data.id=123&type=payment`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-signature': sig, 'x-request-id': 'req-1' },
        body: JSON.stringify({ type: 'payment', data: { id: '123' } }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ received: true, ignored: 'unknown_payment' });
    }
  });

  test('what Mercado Pago delivers for a notification_url with source_news=webhooks: one signed webhook; a redelivery (same request) is applied once', async () => {
    const { u, product, mpId } = await newPurchase(2);
    fake.setStatus(mpId, 'approved');
    const sent = await fake.deliver(t.url, mpId, WEBHOOK_SECRET);
    expect(sent).toHaveLength(1);
    expect(sent[0].url).toContain('source_news=webhooks');
    expect(sent[0].url).toContain(`data.id=${mpId}`);
    expect(sent[0]).toMatchObject({ status: 200, body: { received: true, status: 'approved' } });
    expect(await fake.redeliver(sent[0])).toMatchObject({ status: 200, body: { received: true, status: 'approved' } });
    expect(await balanceOf(t, u.user.id, product.id)).toBe(2);
  });

  test('unsigned hints are rate limited (200 ignored past the limit); signed ones are not', async () => {
    const limited = await createTestContext({ env: mercadoPagoEnv(fake) });
    try {
      const answers: Array<{ status: number; body: any }> = [];
      for (let i = 0; i < 121; i++) answers.push(await fake.notify(limited.url, 777000000 + i, { secret: WEBHOOK_SECRET, unsigned: true }));
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(answers.slice(0, 120).every((a) => a.body.ignored === 'unknown_payment')).toBe(true);
      expect(answers[120].body).toEqual({ received: true, ignored: 'rate_limited' });
      expect((await fake.notify(limited.url, 777000999, { secret: WEBHOOK_SECRET })).body).toEqual({
        received: true,
        ignored: 'unknown_payment',
      });
    } finally {
      await limited.close();
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
      headers: { authorization: `Bearer ${fake.token}`, 'content-type': 'application/json', 'x-idempotency-key': 'someone-else-1' },
      body: JSON.stringify({ transaction_amount: 10, payment_method_id: 'pix', payer: { email: 'x@y.z' }, external_reference: '1' }),
    });
    const foreign = (await res.json()) as { id: number };
    fake.setStatus(foreign.id, 'approved');
    const r2 = await fake.notify(t.url, foreign.id, { secret: WEBHOOK_SECRET });
    expect(r2).toEqual({ status: 200, body: { received: true, ignored: 'unknown_payment' } });
    // external_reference "1" is not trusted: payment #1 (if any) is untouched.
    expect(await t.services.db('payment_fulfilments').where({ payment_id: 1 })).toHaveLength(0);
  });

  test('merchant_order → 200 ignored without fetching; an invalid data.id → 200 ignored; a chargeback re-fetches its payment', async () => {
    const before = fake.count('GET', '/');
    for (const format of ['webhook', 'ipn'] as const) {
      const r = await fake.notify(t.url, 5555, { secret: WEBHOOK_SECRET, type: 'merchant_order', format });
      expect(r).toEqual({ status: 200, body: { received: true, ignored: 'topic' } });
    }
    expect(fake.count('GET', '/')).toBe(before);
    const bad = await fake.notify(t.url, 'a b;c', { secret: WEBHOOK_SECRET });
    expect(bad).toEqual({ status: 200, body: { received: true, ignored: 'invalid_id' } });

    const { u, product, p, mpId } = await newPurchase(2);
    fake.setStatus(mpId, 'approved');
    await fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET });
    const cb = fake.chargeback(mpId);
    const r = await fake.notify(t.url, cb.id, { secret: WEBHOOK_SECRET, type: 'chargebacks' });
    expect(r).toEqual({ status: 200, body: { received: true, status: 'charged_back' } });
    expect(fake.count('GET', `/v1/chargebacks/${cb.id}`)).toBe(1);
    expect(await paymentRow(t, p.paymentId)).toMatchObject({ status: 'charged_back', flagged_for_review: true });
    expect(await balanceOf(t, u.user.id, product.id)).toBe(0);
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

  test("with the sandbox provider the webhook does not exist (404); the CSP names only the active provider's browser SDK", async () => {
    const csp = async (url: string) => (await fetch(`${url}/api/health`)).headers.get('content-security-policy') ?? '';
    const mp = await csp(t.url);
    expect(mp).toContain("script-src 'self' https://sdk.mercadopago.com");
    expect(mp).toContain('https://api.mercadopago.com');
    const sandbox = await createTestContext();
    try {
      const n = fake.notification(sandbox.url, 123, { secret: WEBHOOK_SECRET });
      const res = await fetch(n.url, n.init);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: string }).error).toBe('not_found');
      const sb = await csp(sandbox.url);
      expect(sb).toContain("script-src 'self'");
      expect(sb).not.toContain('mercadopago');
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
    expect((await t.api('POST', '/api/vouchers/consume', { token: u.token, body: { reservationId: res.id, numbers: [42] } })).status).toBe(
      200,
    );
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
  test("signWebhook and verifyWebhookSignature agree on Mercado Pago's manifest", () => {
    const ts = 1_704_908_010;
    const sig = signWebhook('s3cr3t', '123456', 'req-abc', ts);
    expect(sig).toMatch(/^ts=1704908010,v1=[0-9a-f]{64}$/);
    const now = ts * 1000;
    expect(
      verifyWebhookSignature({ xSignature: sig, xRequestId: 'req-abc', dataId: '123456', secret: 's3cr3t', maxAgeMs: 600_000, now }),
    ).toEqual({ ok: true, ts: now });
    expect(verifyWebhookSignature({ xSignature: sig, xRequestId: 'req-abd', dataId: '123456', secret: 's3cr3t', now })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    expect(
      verifyWebhookSignature({
        xSignature: sig,
        xRequestId: 'req-abc',
        dataId: '123456',
        secret: 's3cr3t',
        maxAgeMs: 600_000,
        now: now + 601_000,
      }),
    ).toEqual({ ok: false, reason: 'stale_signature' });
    // Alphanumeric ids are signed lower-cased.
    expect(signWebhook('k', 'ABC123', 'r', 1)).toBe(signWebhook('k', 'abc123', 'r', 1));
  });
});

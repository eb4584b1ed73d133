import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { startFakeMercadoPago, type FakeMercadoPago } from '../helpers/fake-mercadopago';
import {
  WEBHOOK_SECRET,
  balanceOf,
  ledgerOf,
  letThrottlePass,
  makeProductWithDraw,
  mercadoPagoEnv,
  paymentRow,
  reserve,
  sandboxBank,
} from './fixtures';

/**
 * A pending PIX of a reservation that has since been consumed (vouchers) or released is cancelled
 * here at once (never shown or reused again) and at the provider by the next check; an approval
 * that still arrives is applied by the late-approval rule.
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

type U = Awaited<ReturnType<typeof createUser>>;
const puts = (mpId: number) => fake.count('PUT', `/v1/payments/${mpId}`);

async function pendingPix(ctx: TestContext, u: U, drawId: number, numbers: number[]) {
  const res = await reserve(ctx, u.token, drawId, numbers);
  const pix = await ctx.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: res.id } });
  expect(pix.status).toBe(201);
  return {
    reservationId: res.id,
    paymentId: pix.body.paymentId as number,
    providerId: (await paymentRow(ctx, pix.body.paymentId)).provider_payment_id as string,
  };
}

async function consumeWithVouchers(ctx: TestContext, u: U, productId: number, reservationId: number, numbers: number[]) {
  await ctx.services.payments.grantVouchers(
    { user: String(u.user.id), product: String(productId), quantity: numbers.length },
    { via: 'cli' },
  );
  const r = await ctx.api('POST', '/api/vouchers/consume', { token: u.token, body: { reservationId, numbers } });
  expect(r.status).toBe(200);
}

test('numbers confirmed with vouchers: the PIX is cancelled, never reused, and cancelled at Mercado Pago by the next check', async () => {
  const u = await createUser(t);
  const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
  const { reservationId, paymentId, providerId } = await pendingPix(t, u, draw.id, [3, 4]);
  const mpId = Number(providerId);
  await consumeWithVouchers(t, u, product.id, reservationId, [3, 4]);

  expect(await paymentRow(t, paymentId)).toMatchObject({ status: 'cancelled', provider_cancel_pending: true });
  // Never shown or reused again.
  const again = await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId } });
  expect(again.status).toBe(400);
  expect(again.body).toMatchObject({ error: 'reservation_inactive' });
  const mine = await t.api('GET', '/api/payments/me', { token: u.token });
  expect(mine.body.items.find((p: any) => p.id === paymentId)).toMatchObject({ status: 'cancelled', qr_code: null, copy_paste_code: null });

  // The poll job's next run cancels it at the provider, once.
  expect(await t.services.payments.poll(paymentId)).toBe('cancelled');
  expect(puts(mpId)).toBe(1);
  expect(fake.payments.get(mpId)!.status).toBe('cancelled');
  expect(await paymentRow(t, paymentId)).toMatchObject({ status: 'cancelled', provider_cancel_pending: false, flagged_for_review: false });
  await t.services.payments.poll(paymentId);
  expect(puts(mpId)).toBe(1);
});

test('paid at the bank just before the cancellation: Mercado Pago refuses it and the approval is applied (vouchers back, flagged)', async () => {
  const u = await createUser(t);
  const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
  const { reservationId, paymentId, providerId } = await pendingPix(t, u, draw.id, [10, 11]);
  await consumeWithVouchers(t, u, product.id, reservationId, [10, 11]);
  expect(await balanceOf(t, u.user.id, product.id)).toBe(0);
  fake.setStatus(providerId, 'approved');
  // Found by the buyer's status call.
  expect((await t.api('GET', `/api/payments/${paymentId}/status`, { token: u.token })).body.status).toBe('approved');
  expect(puts(Number(providerId))).toBe(1);
  expect(await paymentRow(t, paymentId)).toMatchObject({ status: 'approved', flagged_for_review: true, provider_cancel_pending: false });
  // Its numbers were already the payer's (with vouchers): the payment gets them back as vouchers.
  const l = await ledgerOf(t, paymentId);
  expect(l.sales).toEqual([]);
  expect(l.granted).toBe(2);
  expect(await balanceOf(t, u.user.id, product.id)).toBe(2);
});

test('paid before the cancellation reached the provider, seen by the webhook: nothing is left to cancel', async () => {
  const u = await createUser(t);
  const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
  const { reservationId, paymentId, providerId } = await pendingPix(t, u, draw.id, [12]);
  await consumeWithVouchers(t, u, product.id, reservationId, [12]);
  fake.setStatus(providerId, 'approved');
  const r = await fake.notify(t.url, providerId, { secret: WEBHOOK_SECRET });
  expect(r.body).toMatchObject({ status: 'approved' });
  expect(await paymentRow(t, paymentId)).toMatchObject({ status: 'approved', provider_cancel_pending: false, flagged_for_review: true });
  expect(await balanceOf(t, u.user.id, product.id)).toBe(1);
  // No cancellation is ever sent for it, whatever runs next.
  await t.services.payments.reconcile();
  await t.services.payments.poll(paymentId);
  expect(puts(Number(providerId))).toBe(0);
});

test('a released reservation (expiry job): its PIX is cancelled; a provider outage only delays the cancellation', async () => {
  const u = await createUser(t);
  const { draw } = await makeProductWithDraw(t, { price_cents: 500 });
  const { reservationId, paymentId, providerId } = await pendingPix(t, u, draw.id, [20]);
  const mpId = Number(providerId);
  await t.services
    .db('reservations')
    .where({ id: reservationId })
    .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
  expect(await t.services.reservations.expire(reservationId)).toBe(true);
  expect(await paymentRow(t, paymentId)).toMatchObject({ status: 'cancelled', provider_cancel_pending: true });
  fake.failNext(1, 503, 'PUT');
  await t.services.payments.poll(paymentId);
  expect(await paymentRow(t, paymentId)).toMatchObject({ provider_cancel_pending: true });
  await t.services.payments.poll(paymentId);
  expect(await paymentRow(t, paymentId)).toMatchObject({ provider_cancel_pending: false });
  expect(fake.payments.get(mpId)!.status).toBe('cancelled');
});

test('reconciliation cancels a pending PIX whose reservation closed without the cancellation step (crash between)', async () => {
  const u = await createUser(t);
  const { draw } = await makeProductWithDraw(t, { price_cents: 500 });
  const { reservationId, paymentId } = await pendingPix(t, u, draw.id, [25]);
  await t.services.db('reservations').where({ id: reservationId }).update({ status: 'expired' });
  await t.services.db('draw_numbers').where({ reservation_id: reservationId }).update({ status: 'available', reservation_id: null });
  await t.services.payments.reconcile();
  expect(await paymentRow(t, paymentId)).toMatchObject({ status: 'cancelled', provider_cancel_pending: true });
});

test('sandbox: the charge is cancelled at the sandbox "bank"', async () => {
  const s = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
  try {
    const u = await createUser(s);
    const { product, draw } = await makeProductWithDraw(s, { price_cents: 500 });
    const { reservationId, paymentId, providerId } = await pendingPix(s, u, draw.id, [5]);
    await consumeWithVouchers(s, u, product.id, reservationId, [5]);
    expect((await s.api('GET', `/api/payments/${paymentId}/status`, { token: u.token })).body.status).toBe('cancelled');
    expect((await s.services.db('sandbox_charges').where({ provider_payment_id: providerId }).first()).status).toBe('cancelled');
    // The operator's approval can no longer pay it.
    await letThrottlePass(s, paymentId);
    expect((await s.services.payments.approve(paymentId, { via: 'cli' })).payment.status).toBe('cancelled');
    expect(await balanceOf(s, u.user.id, product.id)).toBe(0);
    // sandboxBank forces the bank state (a payment that went through anyway): late approval.
    await sandboxBank(s, paymentId, 'approved');
    expect((await s.services.payments.approve(paymentId, { via: 'cli' })).payment.status).toBe('approved');
    expect(await balanceOf(s, u.user.id, product.id)).toBe(1);
  } finally {
    await s.close();
  }
});

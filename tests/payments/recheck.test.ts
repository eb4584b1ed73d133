import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { startFakeMercadoPago, type FakeMercadoPago } from '../helpers/fake-mercadopago';
import { runCliCaptured } from '../helpers/cli';
import { registerJobHandlers } from '../../jobs/registry';
import { SCHEDULES } from '../../src/platform/queue';
import { recheckDelayMs } from '../../src/payments/state';
import { soldNumbersThatCount } from '../../src/draws/queries';
import { WEBHOOK_SECRET, balanceOf, buyEbooks, ledgerOf, makeProductWithDraw, mercadoPagoEnv, paymentRow, reserve } from './fixtures';

/**
 * RULES P9 – P12 against the strict fake Mercado Pago: approved payments are asked about again
 * (payment.recheck, `payments recheck`), so a refund, a chargeback, a dispute or a partial refund
 * made at Mercado Pago is applied even when every notification was lost; authorized and
 * in_mediation are states of their own.
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

const db = () => t.services.db;
const cli = (argv: string[]) => runCliCaptured(argv, () => t.services);

/** An approved e-book purchase (approved by a signed notification, as Mercado Pago sends it). */
async function approvedPurchase(quantity = 2, unit = 500) {
  const u = await createUser(t);
  const { product, draw } = await makeProductWithDraw(t, { price_cents: unit });
  const p = await buyEbooks(t, u.token, product.id, quantity, unit);
  const mpId = Number((await paymentRow(t, p.paymentId)).provider_payment_id);
  fake.setStatus(mpId, 'approved');
  expect((await fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET })).body.status).toBe('approved');
  return { u, product, draw, paymentId: p.paymentId, mpId };
}

/** As if the re-check's delay had passed for this payment. */
const makeDue = (paymentId: number) =>
  db()('payments')
    .where({ id: paymentId })
    .update({ recheck_at: db().raw(`now() - interval '1 second'`) });

test('the schedule decays over the 180-day chargeback window; held money is asked about daily', () => {
  const H = 3600_000;
  const D = 24 * H;
  expect(recheckDelayMs(0, 'approved')).toBe(H);
  expect(recheckDelayMs(2 * D, 'approved')).toBe(6 * H);
  expect(recheckDelayMs(10 * D, 'approved')).toBe(D);
  expect(recheckDelayMs(60 * D, 'approved')).toBe(7 * D);
  expect(recheckDelayMs(179.9 * D, 'approved')).toBeLessThan(7 * D);
  expect(recheckDelayMs(181 * D, 'approved')).toBeNull();
  expect(recheckDelayMs(400 * D, 'in_mediation')).toBe(D);
  expect(recheckDelayMs(400 * D, 'authorized')).toBe(D);
  expect(SCHEDULES).toContainEqual({ id: 'payment-recheck', name: 'payment.recheck', everyMs: 600_000 });
});

test('an approved payment refunded at Mercado Pago with every notification lost is found and undone by the scheduled re-check', async () => {
  const { u, product, paymentId, mpId } = await approvedPurchase(3);
  const row = await paymentRow(t, paymentId);
  // Approval scheduled the first re-check an hour out.
  expect(row.recheck_at.getTime()).toBeGreaterThan(Date.now() + 55 * 60_000);
  expect(await balanceOf(t, u.user.id, product.id)).toBe(3);

  fake.refundInPanel(mpId); // no notification reaches us
  // Not due yet: the run asks nothing about it.
  const gets = () => fake.count('GET', `/v1/payments/${mpId}`);
  const before = gets();
  await registerJobHandlers(t.services)['payment.recheck']({}, {} as never);
  expect(gets()).toBe(before);
  expect((await paymentRow(t, paymentId)).status).toBe('approved');

  await makeDue(paymentId);
  const out = (await registerJobHandlers(t.services)['payment.recheck']({}, {} as never)) as {
    changed: Array<{ id: number; from: string; to: string }>;
  };
  expect(out.changed).toContainEqual({ id: paymentId, from: 'approved', to: 'refunded', refunded_cents: 1500 });
  const after = await paymentRow(t, paymentId);
  expect(after).toMatchObject({ status: 'refunded', flagged_for_review: true, refunded_cents: 1500, recheck_at: null });
  expect(await balanceOf(t, u.user.id, product.id)).toBe(0);
  expect((await ledgerOf(t, paymentId)).revoked).toBe(3);
  // Done: never asked about again.
  const n = gets();
  await t.services.payments.recheck();
  expect(gets()).toBe(n);
});

test('a chargeback whose notification was lost: `payments recheck --id` applies it now', async () => {
  const { u, product, paymentId, mpId } = await approvedPurchase(2);
  fake.chargeback(mpId);
  const r = await cli(['payments', 'recheck', '--id', String(paymentId)]);
  expect(r).toMatchObject({ code: 0, err: '' });
  expect(r.out).toContain('1 pagamento consultado, 1 com mudança');
  expect(r.out).toContain(`#${paymentId}: approved → charged_back`);
  expect(await paymentRow(t, paymentId)).toMatchObject({ status: 'charged_back', flagged_for_review: true });
  expect(await balanceOf(t, u.user.id, product.id)).toBe(0);
});

test('a partial refund at Mercado Pago: still approved, flagged for review with the refunded amount, nothing undone', async () => {
  const { u, product, paymentId, mpId } = await approvedPurchase(4); // R$ 20,00
  fake.refundInPanel(mpId, 5);
  const r = await cli(['payments', 'recheck', '--since', '1', '--json']);
  expect(r.code).toBe(0);
  const out = JSON.parse(r.out);
  expect(out.changed).toContainEqual({ id: paymentId, from: 'approved', to: 'approved', refunded_cents: 500 });
  const row = await paymentRow(t, paymentId);
  expect(row).toMatchObject({ status: 'approved', flagged_for_review: true, refunded_cents: 500 });
  expect(row.review_reason).toMatch(/reembolso parcial no provedor: R\$ 5,00 de R\$ 20,00; analisar/);
  expect(await balanceOf(t, u.user.id, product.id)).toBe(4);
  expect(
    await db()('audit_log').where({ entity: 'payment', entity_id: String(paymentId), action: 'payment.partially_refunded' }),
  ).toHaveLength(1);
  // Asked again with nothing new: no second flag or audit entry.
  await t.services.payments.recheck({ id: paymentId });
  expect(
    await db()('audit_log').where({ entity: 'payment', entity_id: String(paymentId), action: 'payment.partially_refunded' }),
  ).toHaveLength(1);
  // The rest refunded later: the whole payment is undone.
  fake.refundInPanel(mpId);
  await t.services.payments.recheck({ id: paymentId });
  expect(await paymentRow(t, paymentId)).toMatchObject({ status: 'refunded', refunded_cents: 2000 });
  expect(await balanceOf(t, u.user.id, product.id)).toBe(0);
});

test('in_mediation: flagged, its numbers do not count while disputed, never expired by our clock; the dispute lost → approved again, they count again', async () => {
  const u = await createUser(t);
  const { draw } = await makeProductWithDraw(t, { price_cents: 300 });
  const res = await reserve(t, u.token, draw.id, [21, 22]);
  const pix = await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: res.id } });
  expect(pix.status).toBe(201);
  const paymentId = pix.body.paymentId as number;
  const mpId = Number((await paymentRow(t, paymentId)).provider_payment_id);
  fake.setStatus(mpId, 'approved');
  await fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET });
  const counted = async () => (await soldNumbersThatCount(db(), draw.id)).filter((s) => s.payment_id === paymentId).map((s) => s.n);
  expect(await counted()).toEqual([21, 22]);

  fake.setStatus(mpId, 'in_mediation');
  await t.services.payments.recheck({ id: paymentId });
  const disputed = await paymentRow(t, paymentId);
  expect(disputed).toMatchObject({ status: 'in_mediation', flagged_for_review: true });
  expect(disputed.review_reason).toMatch(/disputa/);
  expect(await counted()).toEqual([]);
  // Still sold to the buyer (not released), and our clock does not touch it.
  expect((await db()('draw_numbers').where({ draw_id: draw.id }).whereIn('n', [21, 22]).pluck('status')).sort()).toEqual(['sold', 'sold']);
  await db()('payments')
    .where({ id: paymentId })
    .update({ expires_at: db().raw(`now() - interval '1 hour'`) });
  await t.services.payments.poll(paymentId);
  expect((await paymentRow(t, paymentId)).status).toBe('in_mediation');
  expect((await paymentRow(t, paymentId)).recheck_at).not.toBeNull();

  fake.setStatus(mpId, 'approved');
  await t.services.payments.recheck({ id: paymentId });
  expect((await paymentRow(t, paymentId)).status).toBe('approved');
  expect(await counted()).toEqual([21, 22]);
});

test('authorized: a state of its own, not expired by our clock; captured → approved and fulfilled', async () => {
  const u = await createUser(t);
  const { product } = await makeProductWithDraw(t, { price_cents: 500 });
  const p = await buyEbooks(t, u.token, product.id, 1, 500);
  const mpId = Number((await paymentRow(t, p.paymentId)).provider_payment_id);
  fake.setStatus(mpId, 'authorized');
  expect((await fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET })).body.status).toBe('authorized');
  await db()('payments')
    .where({ id: p.paymentId })
    .update({ expires_at: db().raw(`now() - interval '1 hour'`) });
  await t.services.payments.recheck({ id: p.paymentId });
  expect((await paymentRow(t, p.paymentId)).status).toBe('authorized');
  expect(await balanceOf(t, u.user.id, product.id)).toBeNull();
  fake.setStatus(mpId, 'approved');
  await t.services.payments.recheck({ id: p.paymentId });
  expect(await paymentRow(t, p.paymentId)).toMatchObject({ status: 'approved', flagged_for_review: false });
  expect(await balanceOf(t, u.user.id, product.id)).toBe(1);
});

test('race: the scheduled re-check, a forced one and a late notification all find the same refund: undone exactly once', async () => {
  const { u, product, paymentId, mpId } = await approvedPurchase(3);
  fake.refundInPanel(mpId);
  await makeDue(paymentId);
  const [a, b] = await Promise.all([
    t.services.payments.recheck(),
    t.services.payments.recheck({ id: paymentId }),
    fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET }),
    fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET, unsigned: true }),
  ]);
  expect([...a.changed, ...b.changed].filter((c) => c.id === paymentId).length).toBeLessThanOrEqual(2);
  expect(await paymentRow(t, paymentId)).toMatchObject({ status: 'refunded' });
  const l = await ledgerOf(t, paymentId);
  expect(l.revoked).toBe(3);
  expect(await balanceOf(t, u.user.id, product.id)).toBe(0);
  expect(await db()('audit_log').where({ entity: 'payment', entity_id: String(paymentId), action: 'payment.refunded' })).toHaveLength(1);
});

test('Mercado Pago unreachable during a re-check: counted as failed, asked again on the next run', async () => {
  const { paymentId, mpId } = await approvedPurchase(1);
  fake.refundInPanel(mpId);
  fake.failNext(1, 503, 'GET');
  const first = await t.services.payments.recheck({ id: paymentId });
  expect(first).toMatchObject({ checked: 0, failed: 1 });
  expect((await paymentRow(t, paymentId)).status).toBe('approved');
  const second = await t.services.payments.recheck({ id: paymentId });
  expect(second.changed).toEqual([{ id: paymentId, from: 'approved', to: 'refunded', refunded_cents: 500 }]);
});

test('payments recheck: usage errors exit 2 in Portuguese', async () => {
  for (const argv of [
    ['payments', 'recheck', '--id', '1', '--since', '2'],
    ['payments', 'recheck', '--since', '0'],
    ['payments', 'recheck', '--since', '181'],
    ['payments', 'recheck', '--id', 'abc'],
  ]) {
    const r = await cli(argv);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^erro: /m);
  }
});

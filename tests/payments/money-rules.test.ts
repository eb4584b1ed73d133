import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { startFakeMercadoPago, type FakeMercadoPago } from '../helpers/fake-mercadopago';
import { lostNumbersCreditCents } from '../../src/payments/fulfilment';
import { soldNumbersThatCount } from '../../src/draws/queries';
import { runCliCaptured } from '../helpers/cli';
import {
  WEBHOOK_SECRET,
  balanceOf,
  ledgerOf,
  letThrottlePass,
  makeDraw,
  makeProductWithDraw,
  mercadoPagoEnv,
  paymentRow,
  reserve,
} from './fixtures';

/**
 * The money rules (RULES P3-P6, RF1-RF6), against the fake Mercado Pago (webhooks, re-fetches,
 * cancellations): late approval within max_per_user, coupon credit to the cent, refunds and
 * chargebacks of numbers in open and closed draws, and approvals for less than charged.
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
const mpIdOf = async (paymentId: number) => Number((await paymentRow(t, paymentId)).provider_payment_id);
const cells = (drawId: number, ns: number[]) => t.services.db('draw_numbers').where({ draw_id: drawId }).whereIn('n', ns).orderBy('n');

async function pixFor(u: U, drawId: number, numbers: number[]) {
  const res = await reserve(t, u.token, drawId, numbers);
  const pix = await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: res.id } });
  expect(pix.status).toBe(201);
  return { reservationId: res.id, paymentId: pix.body.paymentId as number, mpId: await mpIdOf(pix.body.paymentId) };
}

/** The hold lapses (the expiry job runs) with the PIX unpaid: the PIX is cancelled here and at Mercado Pago. */
async function lapse(reservationId: number) {
  await t.services
    .db('reservations')
    .where({ id: reservationId })
    .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
  expect(await t.services.reservations.expire(reservationId)).toBe(true);
}

/** Another way the user (or someone) gets numbers meanwhile: vouchers. */
async function takeWithVouchers(u: U, drawId: number, productId: number, numbers: number[]) {
  await t.services.payments.grantVouchers(
    { user: String(u.user.id), product: String(productId), quantity: numbers.length },
    { via: 'cli' },
  );
  const r = await reserve(t, u.token, drawId, numbers);
  expect((await t.api('POST', '/api/vouchers/consume', { token: u.token, body: { reservationId: r.id, numbers } })).status).toBe(200);
}

/** Paid at the bank now; found by the buyer's status call. */
async function payLate(u: U, paymentId: number, mpId: number) {
  fake.setStatus(mpId, 'approved');
  await letThrottlePass(t, paymentId);
  expect((await t.api('GET', `/api/payments/${paymentId}/status`, { token: u.token })).body.status).toBe('approved');
}

const webhook = async (mpId: number) => {
  const r = await fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET });
  expect(r.status).toBe(200);
  return r.body;
};

describe('late approval respects max_per_user', () => {
  test('product draw: numbers over the limit become vouchers, the payment is flagged with the reason', async () => {
    const u = await createUser(t);
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 }, { max_per_user: 2 });
    const { reservationId, paymentId, mpId } = await pixFor(u, draw.id, [1, 2]);
    await lapse(reservationId);
    // Meanwhile the payer took another number with a voucher: one slot of two left.
    await takeWithVouchers(u, draw.id, product.id, [9]);
    await payLate(u, paymentId, mpId);
    const row = await paymentRow(t, paymentId);
    expect(row).toMatchObject({ status: 'approved', flagged_for_review: true });
    expect(row.review_reason).toMatch(/2 acima do limite de 2 por pessoa/);
    expect((await cells(draw.id, [1, 2])).map((c) => [c.n, c.status, c.owner_user_id])).toEqual([
      [1, 'sold', u.user.id],
      [2, 'available', null],
    ]);
    expect(await t.services.db('draw_numbers').where({ draw_id: draw.id, owner_user_id: u.user.id })).toHaveLength(2);
    const l = await ledgerOf(t, paymentId);
    expect(l.sales.map((s) => s.n)).toEqual([1]);
    expect(l.vouchers).toEqual([{ reason: 'late_approval', delta: 1, user_id: u.user.id, infoproduct_id: product.id }]);
    expect(l.fulfilments[0].result).toMatchObject({ sold: [1], lost: [2], over_limit: [2], vouchers: 1 });
    expect(await balanceOf(t, u.user.id, product.id)).toBe(1);
  });

  test('draw without product: the numbers over the limit become coupon credit, to the cent', async () => {
    const u = await createUser(t);
    const draw = await makeDraw(t, { infoproduct_id: null, max_per_user: 0, ticket_price_cents_override: 333 });
    const { reservationId, paymentId, mpId } = await pixFor(u, draw.id, [4, 5, 6]);
    await lapse(reservationId);
    // The operator lowered the limit meanwhile: one number per person.
    await t.services.db('draws').where({ id: draw.id }).update({ max_per_user: 1 });
    await payLate(u, paymentId, mpId);
    expect((await paymentRow(t, paymentId)).amount_cents).toBe(999);
    const l = await ledgerOf(t, paymentId);
    expect(l.sales.map((s) => s.n)).toEqual([4]);
    const credit = await t.services.db('coupon_ledger').where({ payment_id: paymentId });
    // The lost numbers' credit, to the cent, besides the cashback every paid payment earns (100 %).
    expect(credit.map((c) => [c.kind, c.amount_cents])).toEqual([
      ['late_approval', 666],
      ['credit', 999],
    ]);
    expect((await t.services.db('coupon_accounts').where({ user_id: u.user.id }).first()).balance_cents).toBe(1665);

    // Refunded later: the unused credit is taken back (once) and the number goes back to the board.
    fake.setStatus(mpId, 'refunded');
    await webhook(mpId);
    await webhook(mpId);
    const ledger = await t.services.db('coupon_ledger').where({ payment_id: paymentId }).orderBy('id');
    expect(ledger.map((c) => [c.kind, c.amount_cents])).toEqual([
      ['late_approval', 666],
      ['credit', 999],
      ['reversal', -1665],
    ]);
    expect((await t.services.db('coupon_accounts').where({ user_id: u.user.id }).first()).balance_cents).toBe(0);
    expect((await cells(draw.id, [4]))[0]).toMatchObject({ status: 'available', owner_user_id: null });
  });

  test('credit of lost numbers never drops a cent', () => {
    expect(lostNumbersCreditCents(999, 3, 1)).toBe(666);
    expect(lostNumbersCreditCents(999, 3, 0)).toBe(999);
    expect(lostNumbersCreditCents(1000, 3, 2)).toBe(334);
    expect(lostNumbersCreditCents(1000, 3, 1)).toBe(667);
    expect(lostNumbersCreditCents(1001, 7, 3)).toBe(1001 - Math.floor((1001 * 3) / 7));
    // Delivered share + credit is always the whole amount.
    for (const [a, n, d] of [
      [1, 3, 1],
      [17, 4, 3],
      [12345, 9, 5],
    ])
      expect(Math.floor((a * d) / n) + lostNumbersCreditCents(a, n, d)).toBe(a);
  });
});

describe('refunds and chargebacks of numbers', () => {
  test('open draw: the numbers go back to the board, the sale rows are kept (voided), and they can be sold again', async () => {
    const u = await createUser(t);
    const other = await createUser(t);
    const { draw } = await makeProductWithDraw(t, { price_cents: 500 });
    const { paymentId, mpId } = await pixFor(u, draw.id, [7, 8]);
    fake.setStatus(mpId, 'approved');
    expect(await webhook(mpId)).toMatchObject({ status: 'approved' });
    expect((await cells(draw.id, [7, 8])).every((c) => c.status === 'sold' && c.owner_user_id === u.user.id)).toBe(true);
    expect((await soldNumbersThatCount(t.services.db, draw.id)).map((s) => s.n)).toEqual([7, 8]);

    fake.setStatus(mpId, 'refunded');
    // Delivered many times at once: released once.
    const answers = await Promise.all(Array.from({ length: 6 }, () => webhook(mpId)));
    expect(answers.every((a) => a.status === 'refunded')).toBe(true);
    expect(
      await t.services.db('audit_log').where({ entity: 'payment', entity_id: String(paymentId), action: 'payment.refunded' }),
    ).toHaveLength(1);
    const row = await paymentRow(t, paymentId);
    expect(row).toMatchObject({ status: 'refunded', flagged_for_review: true });
    expect(row.review_reason).toMatch(new RegExp(`estornado; números 7, 8 do sorteio #${draw.id} liberados`));
    expect((await cells(draw.id, [7, 8])).map((c) => [c.status, c.owner_user_id, c.payment_id])).toEqual([
      ['available', null, null],
      ['available', null, null],
    ]);
    const sales = await t.services.db('number_sales').where({ payment_id: paymentId }).orderBy('n');
    expect(sales.map((s) => [s.n, s.voided_at instanceof Date])).toEqual([
      [7, true],
      [8, true],
    ]);
    expect(await soldNumbersThatCount(t.services.db, draw.id)).toEqual([]);

    // Someone else buys number 7 again: the ledger keeps both sales, one live.
    const again = await pixFor(other, draw.id, [7]);
    fake.setStatus(again.mpId, 'approved');
    await webhook(again.mpId);
    const history = await t.services.db('number_sales').where({ draw_id: draw.id, n: 7 }).orderBy('id');
    expect(history.map((s) => [s.user_id, s.voided_at === null])).toEqual([
      [u.user.id, false],
      [other.user.id, true],
    ]);
    expect(await soldNumbersThatCount(t.services.db, draw.id)).toEqual([{ n: 7, user_id: other.user.id, payment_id: again.paymentId }]);
  });

  test('closed draw: the numbers stay but never count for the winner; the payment is flagged', async () => {
    const u = await createUser(t);
    const other = await createUser(t);
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
    const charged = await pixFor(u, draw.id, [30, 31]);
    const kept = await pixFor(other, draw.id, [40]);
    for (const mpId of [charged.mpId, kept.mpId]) {
      fake.setStatus(mpId, 'approved');
      await webhook(mpId);
    }
    await takeWithVouchers(other, draw.id, product.id, [50]);
    await t.services.db('draws').where({ id: draw.id }).update({ status: 'closed', closed_at: t.services.db.fn.now() });

    fake.setStatus(charged.mpId, 'charged_back');
    expect(await webhook(charged.mpId)).toMatchObject({ status: 'charged_back' });
    const row = await paymentRow(t, charged.paymentId);
    expect(row).toMatchObject({ status: 'charged_back', flagged_for_review: true });
    expect(row.review_reason).toMatch(new RegExp(`números 30, 31 do sorteio #${draw.id} \\(fechado\\) não concorrem`));
    // Still sold on the board (history of the closed draw), linked to their payment.
    expect((await cells(draw.id, [30, 31])).map((c) => [c.status, c.owner_user_id, c.payment_id])).toEqual([
      ['sold', u.user.id, charged.paymentId],
      ['sold', u.user.id, charged.paymentId],
    ]);
    const counting = await soldNumbersThatCount(t.services.db, draw.id);
    expect(counting).toEqual([
      { n: 40, user_id: other.user.id, payment_id: kept.paymentId },
      { n: 50, user_id: other.user.id, payment_id: null },
    ]);
  });
});

describe('an approval for less than charged', () => {
  test('is not fulfilled: flagged, held, its reservation released; confirm, webhooks and reconciliation never deliver', async () => {
    const u = await createUser(t);
    const { draw } = await makeProductWithDraw(t, { price_cents: 500 });
    const { reservationId, paymentId, mpId } = await pixFor(u, draw.id, [60, 61]);
    const mpPayment = fake.setStatus(mpId, 'approved');
    mpPayment.transaction_amount = 5; // R$ 5,00 of R$ 10,00
    const answers = await Promise.all(Array.from({ length: 5 }, () => webhook(mpId)));
    expect(answers.every((a) => a.status === 'approved')).toBe(true);
    const row = await paymentRow(t, paymentId);
    expect(row).toMatchObject({ status: 'approved', flagged_for_review: true, fulfilment_on_hold: true });
    expect(row.review_reason).toBe('valor aprovado (R$ 5,00) menor que o cobrado (R$ 10,00): não entregue, aguarda análise');
    expect((await ledgerOf(t, paymentId)).fulfilments).toHaveLength(0);
    expect((await ledgerOf(t, paymentId)).sales).toHaveLength(0);
    expect((await t.services.db('reservations').where({ id: reservationId }).first()).status).toBe('cancelled');
    expect((await cells(draw.id, [60, 61])).every((c) => c.status === 'available')).toBe(true);

    const c = await t.api('POST', '/api/purchases/confirm', { token: u.token, body: { payment_id: paymentId } });
    expect(c.status).toBe(409);
    expect(c.body).toMatchObject({ error: 'payment_under_review', message: 'O pagamento está em análise. Fale com o suporte.' });
    await t.services.payments.reconcile();
    expect((await ledgerOf(t, paymentId)).fulfilments).toHaveLength(0);
    expect(
      await t.services.db('audit_log').where({ entity: 'payment', entity_id: String(paymentId), action: 'payment.approved' }),
    ).toHaveLength(1);

    // Operators find it with `cotaverde payments list --flagged`.
    const listed = await runCliCaptured(['payments', 'list', '--flagged', '--json', '--limit', '500'], () => t.services);
    expect(listed.code).toBe(0);
    const rows = (JSON.parse(listed.out) as { items: Array<Record<string, unknown>> }).items;
    expect(rows.every((r) => r.flagged_for_review === true)).toBe(true);
    expect(rows.find((r) => r.id === paymentId)).toMatchObject({
      status: 'approved',
      fulfilment_on_hold: true,
      review_reason: expect.stringMatching(/menor que o cobrado/),
    });
  });
});

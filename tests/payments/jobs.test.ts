import type { Job } from 'bullmq';
import { createTestContext, createUser, type TestContext } from '../helpers/context';
import type { RunningWorker } from '../../src/platform/queue';
import { startTestWorker } from '../helpers/worker';
import { waitForJob } from '../helpers/jobs';
import { registerJobHandlers } from '../../jobs/registry';
import { pollDelayMs } from '../../src/payments/service';
import type { ProviderPayment, ProviderStatus } from '../../src/payments/providers/types';
import {
  balanceOf,
  buyEbooks,
  eventually,
  ledgerOf,
  ledgerSum,
  makeDraw,
  makeProductWithDraw,
  paymentRow,
  reserve,
  sandboxBank,
} from './fixtures';

/**
 * Background side of payments (sandbox provider): the polling job, the
 * reconciliation after a Redis wipe, expiry, refunds and chargebacks, and the
 * late-approval rule of reservation payments.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
});
afterAll(() => t.close());

const queue = () => t.services.queue.raw;
const pollJob = (paymentId: number) => queue().getJob(`payment-poll-${paymentId}`);

/** What a provider would report for one of our payments (as the webhook path hands it over). */
async function remote(paymentId: number, status: ProviderStatus): Promise<ProviderPayment> {
  const p = await paymentRow(t, paymentId);
  return {
    providerPaymentId: p.provider_payment_id,
    externalReference: String(p.id),
    status,
    amountCents: p.amount_cents,
    paidAt: status === 'approved' ? new Date() : null,
  };
}

async function approvedPurchase(u: { user: { id: number }; token: string }, productId: number, quantity: number) {
  const p = await buyEbooks(t, u.token, productId, quantity, 500);
  await sandboxBank(t, p.paymentId, 'approved');
  expect(await t.services.payments.poll(p.paymentId)).toBe('approved');
  return p.paymentId;
}

async function consumeOne(token: string, drawId: number, n: number) {
  const res = await reserve(t, token, drawId, [n]);
  const r = await t.api('POST', '/api/vouchers/consume', { token, body: { reservationId: res.id, numbers: [n] } });
  expect(r.status).toBe(200);
}

describe('polling', () => {
  test('delays: quick at first, then every minute', () => {
    expect([0, 1, 2, 3, 4, 5, 50].map(pollDelayMs)).toEqual([5_000, 10_000, 20_000, 40_000, 60_000, 60_000, 60_000]);
  });

  test('the payment.poll job re-delays itself while pending, completes on approval (vouchers granted) and on expiry', async () => {
    const running: RunningWorker = await startTestWorker(t, { concurrency: 2, schedules: [] });
    try {
      const u = await createUser(t);
      const { product } = await makeProductWithDraw(t, { price_cents: 500 });
      const a = await buyEbooks(t, u.token, product.id, 2, 500);
      const b = await buyEbooks(t, u.token, product.id, 1, 500);
      for (const id of [a.paymentId, b.paymentId]) expect(await (await pollJob(id))?.getState()).toBe('delayed');

      // Still pending at the bank: the job runs, asks, and puts itself back with attempt 1.
      await (await pollJob(a.paymentId))!.promote();
      const redelayed = await waitForJob(
        queue(),
        `payment-poll-${a.paymentId}`,
        'delayed',
        'the poll job to re-delay itself',
        (j) => (j.data as { attempt?: number }).attempt === 1,
      );
      expect((await paymentRow(t, a.paymentId)).last_checked_at).toBeInstanceOf(Date);
      expect(redelayed.data).toEqual({ paymentId: a.paymentId, attempt: 1 });

      // Paid: the next run approves and fulfils, and the job completes.
      await sandboxBank(t, a.paymentId, 'approved');
      await redelayed.promote();
      const done = await waitForJob(queue(), `payment-poll-${a.paymentId}`, 'completed', 'the poll job to complete');
      expect(done.returnvalue).toBe('approved');
      expect(await balanceOf(t, u.user.id, product.id)).toBe(2);

      // Past its expiry, unpaid: the job marks it expired and keeps asking, now spaced out (late checks).
      await t.services
        .db('payments')
        .where({ id: b.paymentId })
        .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
      const beforeExpiry = (await pollJob(b.paymentId))!;
      const attemptsBefore = (beforeExpiry.data as { attempt?: number }).attempt ?? 0;
      await beforeExpiry.promote();
      const watching = await waitForJob(
        queue(),
        `payment-poll-${b.paymentId}`,
        'delayed',
        'the expired payment poll job to re-delay itself',
        (j) => ((j.data as { attempt?: number }).attempt ?? 0) > attemptsBefore,
      );
      expect((await paymentRow(t, b.paymentId)).status).toBe('expired');
      expect(await balanceOf(t, u.user.id, product.id)).toBe(2);
      // Outside the late-check window the job stops.
      await t.services
        .db('payments')
        .where({ id: b.paymentId })
        .update({ lapsed_at: t.services.db.raw(`now() - interval '49 hours'`) });
      await watching.promote();
      const stopped = await waitForJob(queue(), `payment-poll-${b.paymentId}`, 'completed', 'the poll job to stop after the window');
      expect(stopped.returnvalue).toBe('expired');
    } finally {
      await running.close();
    }
  });

  test('poll marks a reservation payment expired after its expires_at and releases its numbers', async () => {
    const u = await createUser(t);
    const other = await createUser(t);
    const { draw } = await makeProductWithDraw(t, { price_cents: 500 });
    const res = await reserve(t, u.token, draw.id, [30, 31]);
    const pix = await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: res.id } });
    expect(pix.status).toBe(201);
    // Before its time, still pending.
    expect(await t.services.payments.poll(pix.body.paymentId)).toBe('pending');
    await t.services
      .db('payments')
      .where({ id: pix.body.paymentId })
      .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
    expect(await t.services.payments.poll(pix.body.paymentId)).toBe('expired');
    expect(await t.services.payments.poll(pix.body.paymentId)).toBe('expired');
    const cells = await t.services.db('draw_numbers').where({ draw_id: draw.id }).whereIn('n', [30, 31]);
    expect(cells.map((c) => [c.status, c.reservation_id, c.owner_user_id])).toEqual([
      ['available', null, null],
      ['available', null, null],
    ]);
    expect((await t.services.db('reservations').where({ id: res.id }).first()).status).toBe('expired');
    expect((await ledgerOf(t, pix.body.paymentId)).fulfilments).toHaveLength(0);
    expect((await t.api('GET', `/api/payments/${pix.body.paymentId}/status`, { token: u.token })).body.status).toBe('expired');
    // The numbers are free for someone else.
    await reserve(t, other.token, draw.id, [30, 31]);
  });
});

describe('reconciliation', () => {
  test('after a Redis wipe, reconcile() re-creates a poll job for every pending payment, and only for those', async () => {
    const u = await createUser(t);
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
    const pending = [await buyEbooks(t, u.token, product.id, 1, 500), await buyEbooks(t, u.token, product.id, 2, 500)].map(
      (p) => p.paymentId,
    );
    const res = await reserve(t, u.token, draw.id, [1]);
    pending.push((await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: res.id } })).body.paymentId);
    const approved = await approvedPurchase(u, product.id, 1);
    for (const id of pending) expect(await pollJob(id)).toBeTruthy();

    // Wipe this context's Redis keys (BullMQ's queue included).
    const keys = await t.services.redis.keys(`${t.services.config.queuePrefix}*`);
    expect(keys.length).toBeGreaterThan(0);
    await t.services.redis.del(...keys);
    for (const id of pending) expect(await pollJob(id)).toBeUndefined();

    // Watched: pending payments, and lapsed ones still inside the late-check window (earlier tests made some).
    const allPending: Array<{ id: number }> = await t.services
      .db('payments')
      .whereNotNull('provider_payment_id')
      .where((w) =>
        w
          .where({ status: 'pending' })
          .orWhere((l) =>
            l
              .whereIn('status', ['expired', 'cancelled', 'rejected'])
              .where('lapsed_at', '>', t.services.db.raw(`now() - interval '48 hours'`)),
          ),
      )
      .select('id');
    expect(await t.services.payments.reconcile()).toBe(allPending.length);
    for (const { id } of allPending) {
      const j = await pollJob(id);
      expect(j?.name).toBe('payment.poll');
      expect(j?.data).toEqual({ paymentId: id });
      expect(await j?.getState()).toBe('delayed');
    }
    expect(await pollJob(approved)).toBeUndefined();
    // Idempotent: a second run keeps the same jobs.
    const before = (await t.services.queue.raw.getDelayed()).length;
    await t.services.payments.reconcile();
    expect((await t.services.queue.raw.getDelayed()).length).toBe(before);
  });

  test('reconcile() fulfils an approved payment that has no fulfilment yet, once', async () => {
    const u = await createUser(t);
    const { product } = await makeProductWithDraw(t, { price_cents: 500 });
    const p = await buyEbooks(t, u.token, product.id, 3, 500);
    // Status fixed by hand (e.g. an operator), without fulfilment.
    await t.services.db('payments').where({ id: p.paymentId }).update({ status: 'approved', paid_at: t.services.db.fn.now() });
    await t.services.payments.reconcile();
    await t.services.payments.reconcile();
    expect(await balanceOf(t, u.user.id, product.id)).toBe(3);
    expect((await ledgerOf(t, p.paymentId)).fulfilments).toHaveLength(1);
  });

  test('the payment.reconcile job runs reconcile()', async () => {
    const spy = jest.spyOn(t.services.payments, 'reconcile').mockResolvedValueOnce(7);
    try {
      const handlers = registerJobHandlers(t.services);
      expect(await handlers['payment.reconcile']({} as never, {} as Job<never>)).toBe(7);
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('refunds and chargebacks (applyProviderState)', () => {
  test('a refund revokes only the unused vouchers of the payment, once, and flags it', async () => {
    const u = await createUser(t);
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
    const a = await approvedPurchase(u, product.id, 3);
    await consumeOne(u.token, draw.id, 9);
    expect(await balanceOf(t, u.user.id, product.id)).toBe(2);

    const r1 = await t.services.payments.applyProviderState(a, await remote(a, 'refunded'));
    expect(r1).toMatchObject({ status: 'refunded', flagged_for_review: true });
    const r2 = await t.services.payments.applyProviderState(a, await remote(a, 'refunded'));
    expect(r2.status).toBe('refunded');
    await t.services.payments.applyProviderState(a, await remote(a, 'charged_back'));
    expect((await paymentRow(t, a)).status).toBe('refunded');
    expect(await balanceOf(t, u.user.id, product.id)).toBe(0);
    const l = await ledgerOf(t, a);
    expect(l.vouchers.map((v) => [v.reason, v.delta])).toEqual([
      ['grant', 3],
      ['revoke', -2],
    ]);
    expect(await ledgerSum(t, u.user.id, product.id)).toBe(0);
    expect(await t.services.db('audit_log').where({ entity: 'payment', entity_id: String(a), action: 'payment.refunded' })).toHaveLength(1);
  });

  test('with two purchases, a refund takes back only its own lot: its unused vouchers and the number its vouchers bought', async () => {
    const u = await createUser(t);
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
    const a = await approvedPurchase(u, product.id, 3);
    const b = await approvedPurchase(u, product.id, 2);
    await consumeOne(u.token, draw.id, 1); // spent from the oldest lot: a's
    expect(await balanceOf(t, u.user.id, product.id)).toBe(4);
    await t.services.payments.applyProviderState(a, await remote(a, 'refunded'));
    // a's two unused vouchers go; b's two stay; number 1 (bought with a's voucher) is released.
    expect(await balanceOf(t, u.user.id, product.id)).toBe(2);
    expect((await ledgerOf(t, a)).revoked).toBe(2);
    expect((await t.services.db('draw_numbers').where({ draw_id: draw.id, n: 1 }).first()).status).toBe('available');
    await t.services.payments.applyProviderState(b, await remote(b, 'charged_back'));
    expect(await balanceOf(t, u.user.id, product.id)).toBe(0);
    expect((await ledgerOf(t, b)).revoked).toBe(2);
    expect(await paymentRow(t, b)).toMatchObject({ status: 'charged_back', flagged_for_review: true });
    expect((await paymentRow(t, b)).review_reason).toMatch(/chargeback/);

    const c = await approvedPurchase(u, product.id, 1);
    await consumeOne(u.token, draw.id, 2);
    await t.services.payments.applyProviderState(c, await remote(c, 'charged_back'));
    expect(await paymentRow(t, c)).toMatchObject({ status: 'charged_back', flagged_for_review: true });
    // Nothing unused to revoke; the number its voucher bought is released.
    expect((await ledgerOf(t, c)).revoked).toBe(0);
    expect((await t.services.db('draw_numbers').where({ draw_id: draw.id, n: 2 }).first()).status).toBe('available');
    expect(await ledgerSum(t, u.user.id, product.id)).toBe(0);
  });

  test("a refund reported for a payment we never saw approved revokes nothing of the user's other purchases", async () => {
    const u = await createUser(t);
    const { product } = await makeProductWithDraw(t, { price_cents: 500 });
    await approvedPurchase(u, product.id, 2);
    const p = await buyEbooks(t, u.token, product.id, 2, 500);
    await t.services.payments.applyProviderState(p.paymentId, await remote(p.paymentId, 'refunded'));
    expect(await balanceOf(t, u.user.id, product.id)).toBe(2);
    expect((await ledgerOf(t, p.paymentId)).vouchers).toEqual([]);
  });

  test('refunding a late-approved reservation payment revokes the vouchers it granted for lost numbers', async () => {
    const u = await createUser(t);
    const other = await createUser(t);
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
    const { paymentId } = await lateApprovalSetup(u, other, draw.id, product.id, [40, 41], [40]);
    await t.services.payments.applyProviderState(paymentId, await remote(paymentId, 'approved'));
    expect(await balanceOf(t, u.user.id, product.id)).toBe(1);
    await t.services.payments.applyProviderState(paymentId, await remote(paymentId, 'refunded'));
    expect(await paymentRow(t, paymentId)).toMatchObject({ status: 'refunded', flagged_for_review: true });
    expect(await balanceOf(t, u.user.id, product.id)).toBe(0);
    expect((await ledgerOf(t, paymentId)).revoked).toBe(1);
  });
});

/**
 * A reservation payment whose hold lapsed while the PIX was still open, and
 * some of whose numbers were then sold to someone else (with vouchers).
 */
async function lateApprovalSetup(
  u: { user: { id: number }; token: string },
  other: { user: { id: number }; token: string },
  drawId: number,
  productId: number | null,
  numbers: number[],
  soldToOther: number[],
) {
  const res = await reserve(t, u.token, drawId, numbers);
  const pix = await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: res.id } });
  expect(pix.status).toBe(201);
  await t.services
    .db('reservations')
    .where({ id: res.id })
    .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
  expect(await t.services.reservations.expire(res.id)).toBe(true);
  if (soldToOther.length) {
    if (productId) {
      await t.services.payments.grantVouchers(
        { user: String(other.user.id), product: String(productId), quantity: soldToOther.length },
        { via: 'cli' },
      );
      const r2 = await reserve(t, other.token, drawId, soldToOther);
      expect(
        (await t.api('POST', '/api/vouchers/consume', { token: other.token, body: { reservationId: r2.id, numbers: soldToOther } })).status,
      ).toBe(200);
    } else {
      await t.services
        .db('draw_numbers')
        .where({ draw_id: drawId })
        .whereIn('n', soldToOther)
        .update({ status: 'sold', owner_user_id: other.user.id, sold_at: t.services.db.fn.now() });
      await t.services.db('number_sales').insert(soldToOther.map((n) => ({ draw_id: drawId, n, user_id: other.user.id, source: 'admin' })));
    }
  }
  return { paymentId: pix.body.paymentId as number, reservationId: res.id };
}

describe('late approval of a reservation payment', () => {
  test('numbers sold to someone else meanwhile: the free ones are sold, the rest become vouchers, the payment is flagged', async () => {
    const u = await createUser(t);
    const other = await createUser(t);
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
    const { paymentId, reservationId } = await lateApprovalSetup(u, other, draw.id, product.id, [10, 11, 12], [10, 12]);
    // The released reservation's PIX was cancelled (never shown again); the payer paid it anyway.
    expect((await paymentRow(t, paymentId)).status).toBe('cancelled');

    await sandboxBank(t, paymentId, 'approved');
    expect((await t.api('GET', `/api/payments/${paymentId}/status`, { token: u.token })).body.status).toBe('approved');
    const row = await paymentRow(t, paymentId);
    expect(row).toMatchObject({ status: 'approved', flagged_for_review: true });
    expect(row.review_reason).toMatch(/10, 12/);
    const cells = await t.services.db('draw_numbers').where({ draw_id: draw.id }).whereIn('n', [10, 11, 12]).orderBy('n');
    expect(cells.map((c) => [c.n, c.owner_user_id])).toEqual([
      [10, other.user.id],
      [11, u.user.id],
      [12, other.user.id],
    ]);
    const l = await ledgerOf(t, paymentId);
    expect(l.sales.map((s) => s.n)).toEqual([11]);
    expect(l.vouchers).toEqual([{ reason: 'late_approval', delta: 2, user_id: u.user.id, infoproduct_id: product.id }]);
    expect(l.fulfilments[0].result).toMatchObject({ sold: [11], lost: [10, 12], vouchers: 2 });
    expect(await balanceOf(t, u.user.id, product.id)).toBe(2);
    expect((await t.services.db('reservations').where({ id: reservationId }).first()).status).toBe('paid');
    // Confirm repeats the answer, grants nothing more.
    const c = await t.api('POST', '/api/purchases/confirm', { token: u.token, body: { payment_id: paymentId } });
    expect(c.status).toBe(200);
    expect(await balanceOf(t, u.user.id, product.id)).toBe(2);
  });

  test('approved after the payment itself expired (e.g. a late webhook): same rule, flagged', async () => {
    const u = await createUser(t);
    const other = await createUser(t);
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
    const res = await reserve(t, u.token, draw.id, [70, 71]);
    const pix = await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: res.id } });
    await t.services
      .db('payments')
      .where({ id: pix.body.paymentId })
      .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
    expect(await t.services.payments.poll(pix.body.paymentId)).toBe('expired');
    await t.services.payments.grantVouchers({ user: String(other.user.id), product: String(product.id), quantity: 1 }, { via: 'cli' });
    const r2 = await reserve(t, other.token, draw.id, [71]);
    expect(
      (await t.api('POST', '/api/vouchers/consume', { token: other.token, body: { reservationId: r2.id, numbers: [71] } })).status,
    ).toBe(200);

    const p = await t.services.payments.applyProviderState(pix.body.paymentId, await remote(pix.body.paymentId, 'approved'));
    expect(p.status).toBe('approved');
    expect(await paymentRow(t, pix.body.paymentId)).toMatchObject({ status: 'approved', flagged_for_review: true });
    const l = await ledgerOf(t, pix.body.paymentId);
    expect(l.sales.map((s) => s.n)).toEqual([70]);
    expect(l.granted).toBe(1);
    expect(await balanceOf(t, u.user.id, product.id)).toBe(1);
  });

  test('a draw without product: the lost numbers become coupon credit', async () => {
    const u = await createUser(t);
    const other = await createUser(t);
    const draw = await makeDraw(t, { infoproduct_id: null });
    const { paymentId } = await lateApprovalSetup(u, other, draw.id, null, [3, 4], [4]);
    const amount = (await paymentRow(t, paymentId)).amount_cents;
    await t.services.payments.applyProviderState(paymentId, await remote(paymentId, 'approved'));
    expect(await paymentRow(t, paymentId)).toMatchObject({ status: 'approved', flagged_for_review: true });
    const credit = await t.services.db('coupon_ledger').where({ payment_id: paymentId }).orderBy('id');
    // The lost half comes back as credit; the payment's cashback (RULES C2, default 100%) is
    // credited too.
    expect(credit.map((c) => [c.kind, c.amount_cents])).toEqual([
      ['late_approval', amount / 2],
      ['credit', amount],
    ]);
    expect((await t.services.db('coupon_accounts').where({ user_id: u.user.id }).first()).balance_cents).toBe(amount / 2 + amount);
  });

  test('numbers the payer already owns through another sale count as not delivered: vouchers and a flag, never money for nothing', async () => {
    const u = await createUser(t);
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
    // The hold lapses with the PIX open; the payer takes the same number again with a voucher.
    const { paymentId } = await lateApprovalSetup(u, u, draw.id, product.id, [80], [80]);
    expect(await balanceOf(t, u.user.id, product.id)).toBe(0);
    await t.services.payments.applyProviderState(paymentId, await remote(paymentId, 'approved'));
    expect(await paymentRow(t, paymentId)).toMatchObject({ status: 'approved', flagged_for_review: true });
    expect((await ledgerOf(t, paymentId)).granted).toBe(1);
    expect(await balanceOf(t, u.user.id, product.id)).toBe(1);
  });
});

describe('lock order', () => {
  test('expiring a reservation payment while the reservation expiry job runs does not deadlock', async () => {
    const u = await createUser(t);
    const { draw } = await makeProductWithDraw(t, { price_cents: 500 });
    const res = await reserve(t, u.token, draw.id, [90, 91]);
    const pix = await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: res.id } });
    const paymentId = pix.body.paymentId as number;
    await t.services
      .db('payments')
      .where({ id: paymentId })
      .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
    await t.services
      .db('reservations')
      .where({ id: res.id })
      .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });

    // The reservation expiry job (same statements, same order as reservations.expire),
    // paused right after taking the reservation lock.
    const trx = await t.services.db.transaction();
    let expiryError: unknown = null;
    try {
      await trx('reservations').where({ id: res.id }).forUpdate().first();
      const polling = t.services.payments.poll(paymentId).then(
        (v) => ({ ok: true as const, v }),
        (e) => ({ ok: false as const, e }),
      );
      // Wait until the poll's transaction is blocked on a lock.
      await eventually(
        async () => {
          const r = await t.services.db.raw(
            `SELECT count(*)::int AS c FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          return r.rows[0].c > 0;
        },
        'the poll to block on a lock',
        10_000,
      );
      try {
        await trx('draw_numbers')
          .where({ reservation_id: res.id, status: 'reserved' })
          .update({ status: 'available', reservation_id: null, updated_at: trx.fn.now() });
        await trx('reservations').where({ id: res.id }).update({ status: 'expired', updated_at: trx.fn.now() });
        await trx.commit();
      } catch (e) {
        expiryError = e;
        await trx.rollback().catch(() => {});
      }
      const polled = await polling;
      expect(expiryError).toBeNull();
      expect(polled).toEqual({ ok: true, v: 'expired' });
    } finally {
      if (!trx.isCompleted()) await trx.rollback().catch(() => {});
    }
    expect((await paymentRow(t, paymentId)).status).toBe('expired');
    const cells = await t.services.db('draw_numbers').where({ draw_id: draw.id }).whereIn('n', [90, 91]);
    expect(cells.every((c) => c.status === 'available')).toBe(true);
  });
});

import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { startFakeMercadoPago, type FakeMercadoPago } from '../helpers/fake-mercadopago';
import { startTestWorker } from '../helpers/worker';
import { waitForJob } from '../helpers/jobs';
import { runCliCaptured } from '../helpers/cli';
import { lateCheckDelayMs } from '../../src/payments/queries';
import {
  WEBHOOK_SECRET,
  balanceOf,
  buyEbooks,
  eventually,
  ledgerOf,
  letThrottlePass,
  makeProductWithDraw,
  mercadoPagoEnv,
  paymentRow,
  reserve,
  sandboxBank,
} from './fixtures';

/**
 * RULES P3 and P5: a payment we marked expired or cancelled is still asked about for a while (48 h,
 * spaced out); an approval that arrives then is applied by the late-approval rule. Proven through
 * every detection path: the status call, the poll job, reconciliation and the operator's CLI.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
});
afterAll(() => t.close());

const pollJob = (ctx: TestContext, paymentId: number) => ctx.services.queue.raw.getJob(`payment-poll-${paymentId}`);

/** An e-book PIX that expired unpaid (as the poll job marks it). */
async function expiredPurchase(ctx: TestContext, quantity = 2) {
  const u = await createUser(ctx);
  const { product, draw } = await makeProductWithDraw(ctx, { price_cents: 500 });
  const p = await buyEbooks(ctx, u.token, product.id, quantity, 500);
  await ctx.services
    .db('payments')
    .where({ id: p.paymentId })
    .update({ expires_at: ctx.services.db.raw(`now() - interval '1 second'`) });
  expect(await ctx.services.payments.poll(p.paymentId)).toBe('expired');
  expect(await paymentRow(ctx, p.paymentId)).toMatchObject({ status: 'expired' });
  expect((await paymentRow(ctx, p.paymentId)).lapsed_at).toBeInstanceOf(Date);
  return { u, product, draw, paymentId: p.paymentId };
}

describe('late-check spacing', () => {
  test('every minute at first, then every 5 min, 30 min, 2 h', () => {
    const min = 60_000;
    expect([0, 9 * min, 10 * min, 59 * min, 60 * min, 5 * 60 * min, 6 * 60 * min, 40 * 60 * min].map(lateCheckDelayMs)).toEqual([
      min,
      min,
      5 * min,
      5 * min,
      30 * min,
      30 * min,
      120 * min,
      120 * min,
    ]);
  });
});

describe('sandbox: an approval after our expiry is applied', () => {
  test('through the status call (within the spacing it does not ask again)', async () => {
    const { u, product, paymentId } = await expiredPurchase(t, 2);
    await sandboxBank(t, paymentId, 'approved');
    // Just checked by the poll that expired it: the spacing (1 min at first) holds the next check.
    expect((await t.api('GET', `/api/payments/${paymentId}/status`, { token: u.token })).body.status).toBe('expired');
    await letThrottlePass(t, paymentId);
    // The buyer's status answer is kept up to 1 s (the user read cache): ask until a call checks again.
    await eventually(
      async () => ((await t.api('GET', `/api/payments/${paymentId}/status`, { token: u.token })).body.status === 'approved' ? true : null),
      'the status call to apply the approval once the spacing passed',
    );
    const row = await paymentRow(t, paymentId);
    expect(row).toMatchObject({ status: 'approved', flagged_for_review: true });
    expect(row.review_reason).toMatch(/aprovado depois de expired/);
    expect(await balanceOf(t, u.user.id, product.id)).toBe(2);
    expect((await ledgerOf(t, paymentId)).fulfilments).toHaveLength(1);
    // The purchase confirms like any approved one.
    const c = await t.api('POST', '/api/purchases/confirm', { token: u.token, body: { payment_id: paymentId } });
    expect(c.status).toBe(200);
    expect(c.body.vouchers_granted).toBe(2);
  });

  test('through the poll job: it keeps watching an expired payment and fulfils the late approval', async () => {
    const running = await startTestWorker(t, { schedules: [] });
    try {
      const u = await createUser(t);
      const { product } = await makeProductWithDraw(t, { price_cents: 500 });
      const p = await buyEbooks(t, u.token, product.id, 3, 500);
      await t.services
        .db('payments')
        .where({ id: p.paymentId })
        .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
      await (await pollJob(t, p.paymentId))!.promote();
      await eventually(async () => (await paymentRow(t, p.paymentId)).status === 'expired', 'the job to expire the payment');
      const watching = await waitForJob(t.services.queue.raw, `payment-poll-${p.paymentId}`, 'delayed', 'the job to keep watching');
      await sandboxBank(t, p.paymentId, 'approved');
      await watching.promote();
      const done = await waitForJob(
        t.services.queue.raw,
        `payment-poll-${p.paymentId}`,
        'completed',
        'the poll job to apply the late approval',
      );
      expect(done.returnvalue).toBe('approved');
      expect(await paymentRow(t, p.paymentId)).toMatchObject({ status: 'approved', flagged_for_review: true });
      expect(await balanceOf(t, u.user.id, product.id)).toBe(3);
    } finally {
      await running.close();
    }
  });

  test('through reconciliation after a Redis wipe (the poll job was lost)', async () => {
    const { u, product, paymentId } = await expiredPurchase(t, 1);
    const keys = await t.services.redis.keys(`${t.services.config.queuePrefix}*`);
    if (keys.length) await t.services.redis.del(...keys);
    expect(await pollJob(t, paymentId)).toBeUndefined();
    await sandboxBank(t, paymentId, 'approved');
    await letThrottlePass(t, paymentId);
    const running = await startTestWorker(t, { schedules: [] });
    try {
      await t.services.payments.reconcile();
      expect(await pollJob(t, paymentId)).toBeTruthy();
      await eventually(async () => (await paymentRow(t, paymentId)).status === 'approved', 'reconciliation to re-create the check');
      expect(await balanceOf(t, u.user.id, product.id)).toBe(1);
    } finally {
      await running.close();
    }
  });

  test('`cotaverde payments approve <id>` forces the check, even past the 48 h window', async () => {
    const { u, product, paymentId } = await expiredPurchase(t, 2);
    // Long ago: status calls and the poll job no longer ask.
    await t.services
      .db('payments')
      .where({ id: paymentId })
      .update({
        lapsed_at: t.services.db.raw(`now() - interval '3 days'`),
        last_checked_at: t.services.db.raw(`now() - interval '3 days'`),
      });
    await sandboxBank(t, paymentId, 'approved');
    expect((await t.api('GET', `/api/payments/${paymentId}/status`, { token: u.token })).body.status).toBe('expired');
    expect(await t.services.payments.poll(paymentId)).toBe('expired');
    const r = await runCliCaptured(['payments', 'approve', String(paymentId)], () => t.services);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`^pagamento #${paymentId}: approved \\(em análise: aprovado depois de expired\\)`));
    expect(await balanceOf(t, u.user.id, product.id)).toBe(2);
    expect(
      await t.services.db('audit_log').where({ entity: 'payment', entity_id: String(paymentId), action: 'payment.approved' }),
    ).toHaveLength(1);
  });

  test('a late approval of a reservation payment through the status call sells the numbers still free', async () => {
    const u = await createUser(t);
    const { draw } = await makeProductWithDraw(t, { price_cents: 500 });
    const res = await reserve(t, u.token, draw.id, [20, 21]);
    const pix = await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: res.id } });
    const paymentId = pix.body.paymentId as number;
    await t.services
      .db('payments')
      .where({ id: paymentId })
      .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
    expect(await t.services.payments.poll(paymentId)).toBe('expired');
    expect(
      await t.services.db('draw_numbers').where({ draw_id: draw.id }).whereIn('n', [20, 21]).where({ status: 'available' }),
    ).toHaveLength(2);
    await sandboxBank(t, paymentId, 'approved');
    await letThrottlePass(t, paymentId);
    expect((await t.api('GET', `/api/payments/${paymentId}/status`, { token: u.token })).body.status).toBe('approved');
    expect((await ledgerOf(t, paymentId)).sales.map((s) => s.n)).toEqual([20, 21]);
  });
});

describe('Mercado Pago: the webhook was lost', () => {
  let fake: FakeMercadoPago;
  let mp: TestContext;
  beforeAll(async () => {
    fake = await startFakeMercadoPago({ realQr: false });
    mp = await createTestContext({ env: mercadoPagoEnv(fake, { RATE_LIMIT_DISABLED: '1' }) });
  });
  afterAll(async () => {
    await mp.close();
    await fake.close();
  });

  test('cancelled on our side, paid at Mercado Pago later: the status call finds it; repeated and parallel deliveries grant once', async () => {
    const u = await createUser(mp);
    const { product } = await makeProductWithDraw(mp, { price_cents: 700 });
    const p = await buyEbooks(mp, u.token, product.id, 2, 700);
    const mpId = Number((await paymentRow(mp, p.paymentId)).provider_payment_id);
    // Our side gave up on it (e.g. past its time, Mercado Pago still said pending).
    await mp.services
      .db('payments')
      .where({ id: p.paymentId })
      .update({ expires_at: mp.services.db.raw(`now() - interval '1 second'`) });
    expect(await mp.services.payments.poll(p.paymentId)).toBe('expired');
    const gets = () => fake.count('GET', `/v1/payments/${mpId}`);
    const before = gets();
    fake.setStatus(mpId, 'approved');
    // Within the spacing, status calls answer from the row.
    const early = await Promise.all(
      Array.from({ length: 5 }, () => mp.api('GET', `/api/payments/${p.paymentId}/status`, { token: u.token })),
    );
    expect(early.map((r) => r.body.status)).toEqual(Array(5).fill('expired'));
    expect(gets()).toBe(before);
    await letThrottlePass(mp, p.paymentId);
    // Parallel: status calls, the (late) webhook delivered many times, and the poll job.
    const results = await Promise.all([
      ...Array.from({ length: 10 }, () => mp.api('GET', `/api/payments/${p.paymentId}/status`, { token: u.token }).then((r) => r.status)),
      ...Array.from({ length: 10 }, (_, i) =>
        fake.notify(mp.url, mpId, { secret: WEBHOOK_SECRET, requestId: `late-${mpId}-${i}` }).then((r) => r.status),
      ),
      ...Array.from({ length: 3 }, () => mp.services.payments.poll(p.paymentId).then(() => 200)),
    ]);
    expect(results.every((s) => s === 200)).toBe(true);
    expect(await paymentRow(mp, p.paymentId)).toMatchObject({ status: 'approved', flagged_for_review: true });
    expect(await balanceOf(mp, u.user.id, product.id)).toBe(2);
    const l = await ledgerOf(mp, p.paymentId);
    expect(l.granted).toBe(2);
    expect(l.fulfilments).toHaveLength(1);
    expect(
      await mp.services.db('audit_log').where({ entity: 'payment', entity_id: String(p.paymentId), action: 'payment.approved' }),
    ).toHaveLength(1);
  });

  test('a lapsed reservation PIX paid late, delivered in parallel by every path: free numbers sold once, the taken one becomes one voucher', async () => {
    const u = await createUser(mp);
    const other = await createUser(mp);
    const { product, draw } = await makeProductWithDraw(mp, { price_cents: 700 });
    const res = await reserve(mp, u.token, draw.id, [15, 16, 17]);
    const pix = await mp.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: res.id } });
    const paymentId = pix.body.paymentId as number;
    const mpId = Number((await paymentRow(mp, paymentId)).provider_payment_id);
    await mp.services
      .db('payments')
      .where({ id: paymentId })
      .update({ expires_at: mp.services.db.raw(`now() - interval '1 second'`) });
    expect(await mp.services.payments.poll(paymentId)).toBe('expired');
    // Number 16 goes to someone else meanwhile.
    await mp.services.payments.grantVouchers({ user: String(other.user.id), product: String(product.id), quantity: 1 }, { via: 'cli' });
    const r2 = await reserve(mp, other.token, draw.id, [16]);
    expect(
      (await mp.api('POST', '/api/vouchers/consume', { token: other.token, body: { reservationId: r2.id, numbers: [16] } })).status,
    ).toBe(200);

    fake.setStatus(mpId, 'approved');
    await letThrottlePass(mp, paymentId);
    const results = await Promise.all([
      ...Array.from({ length: 8 }, () => mp.api('GET', `/api/payments/${paymentId}/status`, { token: u.token }).then((r) => r.status)),
      ...Array.from({ length: 8 }, (_, i) =>
        fake.notify(mp.url, mpId, { secret: WEBHOOK_SECRET, requestId: `late-res-${mpId}-${i}` }).then((r) => r.status),
      ),
      ...Array.from({ length: 3 }, () => mp.services.payments.poll(paymentId).then(() => 200)),
      mp.services.payments.reconcile().then(() => 200),
    ]);
    expect(results.every((s) => s === 200)).toBe(true);
    expect(await paymentRow(mp, paymentId)).toMatchObject({ status: 'approved', flagged_for_review: true });
    const l = await ledgerOf(mp, paymentId);
    expect(l.sales.map((s) => [s.n, s.user_id])).toEqual([
      [15, u.user.id],
      [17, u.user.id],
    ]);
    expect(l.vouchers).toEqual([{ reason: 'late_approval', delta: 1, user_id: u.user.id, infoproduct_id: product.id }]);
    expect(l.fulfilments).toHaveLength(1);
    expect(await balanceOf(mp, u.user.id, product.id)).toBe(1);
  });

  test('`payments approve` with Mercado Pago only asks (nothing to approve at a real bank)', async () => {
    const u = await createUser(mp);
    const { product } = await makeProductWithDraw(mp, { price_cents: 700 });
    const p = await buyEbooks(mp, u.token, product.id, 1, 700);
    const mpId = Number((await paymentRow(mp, p.paymentId)).provider_payment_id);
    const gets = () => fake.count('GET', `/v1/payments/${mpId}`);
    const before = gets();
    const pending = await runCliCaptured(['payments', 'approve', String(p.paymentId)], () => mp.services);
    expect(pending.code).toBe(0);
    expect(pending.out.trim()).toBe(`pagamento #${p.paymentId}: pending`);
    expect(gets()).toBe(before + 1);
    fake.setStatus(mpId, 'approved');
    const ok = await runCliCaptured(['payments', 'approve', String(p.paymentId), '--json'], () => mp.services);
    expect(JSON.parse(ok.out)).toEqual([{ id: p.paymentId, status: 'approved', approved_at_bank: false, flagged_for_review: false }]);
    expect(await balanceOf(mp, u.user.id, product.id)).toBe(1);
  });

  test("the webhook's 503 says the provider is unavailable, never the internal error", async () => {
    const u = await createUser(mp);
    const { product } = await makeProductWithDraw(mp, { price_cents: 700 });
    const p = await buyEbooks(mp, u.token, product.id, 1, 700);
    const mpId = Number((await paymentRow(mp, p.paymentId)).provider_payment_id);
    fake.failNext(1, 502, 'GET');
    const r = await fake.notify(mp.url, mpId, { secret: WEBHOOK_SECRET });
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ error: 'provider_unavailable', message: 'O provedor de pagamento está indisponível no momento.' });
    expect(JSON.stringify(r.body)).not.toMatch(/mercadopago|502|fetch/i);
  });
});

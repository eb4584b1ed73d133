import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { startTestWorker } from '../helpers/worker';
import { balanceOf, buyEbooks, eventually, makeProductWithDraw, paymentRow, sandboxBank } from './fixtures';

/** Payments that never settle the ordinary way must still end, and odd approvals get a human look. */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
});
afterAll(() => t.close());

test('refunded before we ever saw it approved: the payment ends refunded and flagged, nothing granted', async () => {
  const u = await createUser(t);
  const { product } = await makeProductWithDraw(t, { price_cents: 300 });
  const p = await buyEbooks(t, u.token, product.id, 2, 300);
  await sandboxBank(t, p.paymentId, 'refunded');
  expect(await t.services.payments.poll(p.paymentId)).toBe('refunded');
  const row = await paymentRow(t, p.paymentId);
  expect(row.flagged_for_review).toBe(true);
  expect(await balanceOf(t, u.user.id, product.id)).toBeFalsy();
  expect(await t.services.db('payment_fulfilments').where({ payment_id: p.paymentId })).toHaveLength(0);
});

test('a charge the provider does not know is expired once its time has passed (no endless polling)', async () => {
  const u = await createUser(t);
  const { product } = await makeProductWithDraw(t, { price_cents: 300 });
  const p = await buyEbooks(t, u.token, product.id, 1, 300);
  const row = await paymentRow(t, p.paymentId);
  await t.services.db('sandbox_charges').where({ provider_payment_id: row.provider_payment_id }).del();
  expect(await t.services.payments.poll(p.paymentId)).toBe('pending');
  await t.services
    .db('payments')
    .where({ id: p.paymentId })
    .update({ expires_at: t.services.db.raw(`now() - interval '1 minute'`) });
  expect(await t.services.payments.poll(p.paymentId)).toBe('expired');
});

test('an approval for more than charged is fulfilled but flagged for review', async () => {
  const u = await createUser(t);
  const { product } = await makeProductWithDraw(t, { price_cents: 300 });
  const p = await buyEbooks(t, u.token, product.id, 2, 300);
  const row = await paymentRow(t, p.paymentId);
  const after = await t.services.payments.applyProviderState(p.paymentId, {
    providerPaymentId: row.provider_payment_id,
    externalReference: String(row.id),
    status: 'approved',
    amountCents: 601,
    paidAt: new Date(),
  });
  expect(after.status).toBe('approved');
  expect(after.flagged_for_review).toBe(true);
  expect(after.review_reason).toContain('difere');
  expect(await balanceOf(t, u.user.id, product.id)).toBe(2);
});

test('reconcile() cancels a pending row whose creation died before reaching the provider', async () => {
  const u = await createUser(t);
  const { product } = await makeProductWithDraw(t, { price_cents: 300 });
  const [orphan] = await t.services
    .db('payments')
    .insert({
      user_id: u.user.id,
      kind: 'infoproduct',
      method: 'pix',
      provider: 'sandbox',
      status: 'pending',
      amount_cents: 300,
      quantity: 1,
      infoproduct_id: product.id,
      created_at: t.services.db.raw(`now() - interval '10 minutes'`),
    })
    .returning('*');
  const [fresh] = await t.services
    .db('payments')
    .insert({
      user_id: u.user.id,
      kind: 'infoproduct',
      method: 'pix',
      provider: 'sandbox',
      status: 'pending',
      amount_cents: 300,
      quantity: 1,
      infoproduct_id: product.id,
    })
    .returning('*');
  await t.services.payments.reconcile();
  expect((await paymentRow(t, orphan.id)).status).toBe('cancelled');
  expect((await paymentRow(t, fresh.id)).status).toBe('pending');
});

test('after a Redis wipe the running worker puts its schedules back by itself', async () => {
  const running = await startTestWorker(t, { scheduleRefreshMs: 300 });
  try {
    const ids = async () => (await t.services.queue.raw.getJobSchedulers()).map((s) => s.key ?? s.id).sort();
    expect(await ids()).toEqual(expect.arrayContaining(['payment-reconcile', 'reservation-sweep', 'mail-sweep']));
    const keys = await t.services.redis.keys(`${t.services.config.queuePrefix}*`);
    if (keys.length) await t.services.redis.del(...keys);
    // The schedules are put back one by one: wait for all of them, not the first.
    const restored = await eventually(
      async () => {
        const now = await ids();
        return ['payment-reconcile', 'reservation-sweep', 'mail-sweep'].every((id) => now.includes(id)) ? now : null;
      },
      'schedules restored',
      30_000,
      100,
    );
    expect(restored).toEqual(expect.arrayContaining(['payment-reconcile', 'reservation-sweep', 'mail-sweep']));
  } finally {
    await running.close();
  }
});

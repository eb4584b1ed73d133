import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { writeAppConfig } from '../../src/platform/app-config';
import type { ProviderPayment, ProviderStatus } from '../../src/payments/providers/types';
import { COUPON_CODE_RE } from '../../src/coupons/schema';
import { buyEbooks, makeProductWithDraw, paymentRow, sandboxBank } from '../payments/fixtures';

/**
 * Store credit (RULES C1-C3): cashback on every approved paid payment, once; reversal on
 * refund/chargeback never below zero; expiry as a ledger entry; random unique codes;
 * GET /api/coupons/mine and POST /api/coupons/sync (and its alias) over real HTTP.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
});
afterAll(() => t.close());

const db = () => t.services.db;

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

/** A pending sandbox PIX for `quantity` e-books at R$ 5,00. */
async function pendingPurchase(token: string, quantity = 2) {
  const { product } = await makeProductWithDraw(t, { price_cents: 500 });
  const p = await buyEbooks(t, token, product.id, quantity, 500);
  return { paymentId: p.paymentId, amount: 500 * quantity, product };
}

async function approvedPurchase(token: string, quantity = 2) {
  const p = await pendingPurchase(token, quantity);
  await t.services.payments.applyProviderState(p.paymentId, await remote(p.paymentId, 'approved'));
  return p;
}

const ledger = (userId: number) => db()('coupon_ledger').where({ user_id: userId }).orderBy('id');
const account = (userId: number) => db()('coupon_accounts').where({ user_id: userId }).first();
async function ledgerSum(userId: number) {
  const r = await db()('coupon_ledger').where({ user_id: userId }).sum<{ s: number | null }[]>({ s: 'amount_cents' });
  return Number(r[0].s ?? 0);
}

describe('credit on approval', () => {
  test('an approved e-book payment credits 100% of its amount once; GET /api/coupons/mine shows it with a code and validity', async () => {
    const u = await createUser(t);
    const { paymentId, amount } = await approvedPurchase(u.token, 3);
    const rows = await ledger(u.user.id);
    expect(rows.map((r) => [r.kind, r.amount_cents, r.payment_id])).toEqual([['credit', amount, paymentId]]);

    const mine = await t.api('GET', '/api/coupons/mine', { token: u.token });
    expect(mine.status).toBe(200);
    expect(mine.headers.get('cache-control')).toBe('no-store');
    expect(mine.body.code).toMatch(COUPON_CODE_RE);
    expect(mine.body.cents).toBe(amount);
    const paidAt = new Date((await paymentRow(t, paymentId)).paid_at).getTime();
    expect(new Date(mine.body.valid_until).getTime()).toBe(paidAt + 180 * 86_400_000);
    expect(mine.body.entries).toEqual([
      expect.objectContaining({ kind: 'credit', cents: amount, payment_id: paymentId, reason: expect.stringContaining('100%') }),
    ]);
    // Stable code: the same on every read.
    expect((await t.api('GET', '/api/coupons/mine', { token: u.token })).body.code).toBe(mine.body.code);
  });

  test('coupon_cashback_percent from the config decides the credit (rounded down to the cent)', async () => {
    await writeAppConfig(db(), { coupon_cashback_percent: 33 });
    try {
      const u = await createUser(t);
      const { amount } = await approvedPurchase(u.token, 1);
      expect((await ledger(u.user.id)).map((r) => r.amount_cents)).toEqual([Math.floor((amount * 33) / 100)]);
    } finally {
      await writeAppConfig(db(), { coupon_cashback_percent: 100 });
    }
  });

  test('admin assignments carry no money and credit nothing', async () => {
    const u = await createUser(t);
    const { product } = await makeProductWithDraw(t, { price_cents: 500 });
    await t.services.payments.grantVouchers({ user: String(u.user.id), product: String(product.id), quantity: 2 }, { via: 'cli' });
    expect(await ledger(u.user.id)).toEqual([]);
  });

  test('50 concurrent approvals and syncs of one payment credit it exactly once', async () => {
    const u = await createUser(t);
    const { paymentId, amount } = await pendingPurchase(u.token, 4);
    await sandboxBank(t, paymentId, 'approved');
    const calls: Array<Promise<{ status: number; body: any }>> = [];
    for (let i = 0; i < 50; i++) {
      if (i % 2 === 0) calls.push(t.api('POST', '/api/purchases/confirm', { token: u.token, body: { payment_id: paymentId } }));
      else calls.push(t.api('POST', i % 4 === 1 ? '/api/coupons/sync' : '/api/me/coupons/sync', { token: u.token }));
    }
    const res = await Promise.all(calls);
    expect(res.map((r) => r.status)).toEqual(Array(50).fill(200));
    const credits = (await ledger(u.user.id)).filter((r) => r.kind === 'credit');
    expect(credits).toHaveLength(1);
    expect(credits[0]).toMatchObject({ payment_id: paymentId, amount_cents: amount });
    expect((await account(u.user.id)).balance_cents).toBe(amount);
    expect(await ledgerSum(u.user.id)).toBe(amount);
    // Whoever credited it, the syncs together reported at most that once.
    const reported = res.filter((r) => 'add_cents' in r.body).reduce((s, r) => s + r.body.add_cents, 0);
    expect([0, amount]).toContain(reported);
  });
});

describe('POST /api/coupons/sync', () => {
  test('credits an approved payment the ledger lacks, once; the alias answers the same; the other user is untouched', async () => {
    const u = await createUser(t);
    const other = await createUser(t);
    const { paymentId, amount } = await approvedPurchase(u.token, 2);
    // As if the payment had been fulfilled before cashback existed.
    await db()('coupon_ledger').where({ payment_id: paymentId }).del();
    await db()('coupon_accounts').where({ user_id: u.user.id }).update({ balance_cents: 0, last_paid_payment_at: null });

    const foreign = await t.api('POST', '/api/coupons/sync', { token: other.token });
    expect(foreign.status).toBe(200);
    expect(foreign.body.add_cents).toBe(0);
    expect(await ledger(u.user.id)).toEqual([]);

    const s1 = await t.api('POST', '/api/coupons/sync', { token: u.token, body: {} });
    expect(s1.status).toBe(200);
    expect(s1.body.add_cents).toBe(amount);
    expect(Number.isNaN(Date.parse(s1.body.last_payment_sync_at))).toBe(false);
    const s2 = await t.api('POST', '/api/me/coupons/sync', { token: u.token });
    expect(s2.status).toBe(200);
    expect(s2.body.add_cents).toBe(0);
    expect(Date.parse(s2.body.last_payment_sync_at)).toBeGreaterThanOrEqual(Date.parse(s1.body.last_payment_sync_at));
    expect((await ledger(u.user.id)).map((r) => [r.kind, r.amount_cents])).toEqual([['credit', amount]]);
    const mine = await t.api('GET', '/api/coupons/mine', { token: u.token });
    expect(mine.body).toMatchObject({ cents: amount, last_payment_sync_at: s2.body.last_payment_sync_at });
    const otherMine = await t.api('GET', '/api/coupons/mine', { token: other.token });
    expect(otherMine.body).toMatchObject({ cents: 0, valid_until: null, entries: [] });
    expect(otherMine.body.code).not.toBe(mine.body.code);
  });

  test('anonymous calls answer 401; a body that is not an object answers 400 in Portuguese', async () => {
    for (const [m, p] of [
      ['GET', '/api/coupons/mine'],
      ['POST', '/api/coupons/sync'],
      ['POST', '/api/me/coupons/sync'],
    ] as const) {
      const r = await t.api(m, p);
      expect(r.status).toBe(401);
      expect(r.body.error).toBe('unauthenticated');
    }
    const u = await createUser(t);
    const arr = await t.api('POST', '/api/coupons/sync', { token: u.token, body: [1, 2] });
    expect(arr.status).toBe(400);
    expect(arr.body).toMatchObject({ error: 'validation_error', message: expect.stringContaining('inválido') });
    const broken = await t.api('POST', '/api/coupons/sync', { token: u.token, rawBody: '{"a":' });
    expect(broken.status).toBe(400);
  });
});

describe('refunds and chargebacks', () => {
  test('a refund reverses the unspent credit once', async () => {
    const u = await createUser(t);
    const { paymentId, amount } = await approvedPurchase(u.token, 2);
    await t.services.payments.applyProviderState(paymentId, await remote(paymentId, 'refunded'));
    await t.services.payments.applyProviderState(paymentId, await remote(paymentId, 'refunded'));
    await t.api('POST', '/api/coupons/sync', { token: u.token });
    expect((await ledger(u.user.id)).map((r) => [r.kind, r.amount_cents])).toEqual([
      ['credit', amount],
      ['reversal', -amount],
    ]);
    expect(await account(u.user.id)).toMatchObject({
      balance_cents: 0,
      debt_cents: 0,
      flagged_for_review: false,
      last_paid_payment_at: null,
    });
  });

  test('a chargeback after part of the credit was spent: balance to zero, the spent part stays a debt flagged for review', async () => {
    const u = await createUser(t);
    const { paymentId, amount } = await approvedPurchase(u.token, 2);
    // A redemption at the partner store spent 300 of it.
    await db().transaction(async (trx) => {
      await trx('coupon_ledger').insert({ user_id: u.user.id, kind: 'debit', amount_cents: -300, note: 'resgate na loja parceira' });
      await trx('coupon_accounts')
        .where({ user_id: u.user.id })
        .update({ balance_cents: amount - 300 });
    });
    await t.services.payments.applyProviderState(paymentId, await remote(paymentId, 'charged_back'));
    const rows = await ledger(u.user.id);
    expect(rows.map((r) => [r.kind, r.amount_cents])).toEqual([
      ['credit', amount],
      ['debit', -300],
      ['reversal', -(amount - 300)],
    ]);
    expect(rows[2].note).toContain('débito para revisão');
    const a = await account(u.user.id);
    expect(a).toMatchObject({ balance_cents: 0, debt_cents: 300, flagged_for_review: true });
    expect(a.review_reason).toContain('R$ 3,00');
    expect(await ledgerSum(u.user.id)).toBe(0);
  });

  test('50 concurrent refund deliveries and syncs reverse the credit exactly once', async () => {
    const u = await createUser(t);
    const { paymentId, amount } = await approvedPurchase(u.token, 3);
    const refunded = await remote(paymentId, 'refunded');
    const calls: Array<Promise<unknown>> = [];
    for (let i = 0; i < 50; i++) {
      calls.push(
        i % 2 === 0
          ? t.services.payments.applyProviderState(paymentId, refunded)
          : t.api('POST', '/api/coupons/sync', { token: u.token }).then((r) => expect(r.status).toBe(200)),
      );
    }
    await Promise.all(calls);
    expect((await ledger(u.user.id)).map((r) => [r.kind, r.amount_cents])).toEqual([
      ['credit', amount],
      ['reversal', -amount],
    ]);
    expect((await account(u.user.id)).balance_cents).toBe(0);
    expect(await ledgerSum(u.user.id)).toBe(0);
  });

  test('a refund the transition missed is reversed by the sync (the ledger lacks it)', async () => {
    const u = await createUser(t);
    const { paymentId, amount } = await approvedPurchase(u.token, 1);
    // A manual status fix, outside the transition function.
    await db()('payments').where({ id: paymentId }).update({ status: 'refunded' });
    const s = await t.api('POST', '/api/coupons/sync', { token: u.token });
    expect(s.body.add_cents).toBe(0);
    expect((await ledger(u.user.id)).map((r) => [r.kind, r.amount_cents])).toEqual([
      ['credit', amount],
      ['reversal', -amount],
    ]);
  });
});

describe('expiry', () => {
  test('180 days after the last paid payment the job writes an expiry entry (once), never a silent zero', async () => {
    const u = await createUser(t);
    const { paymentId, amount } = await approvedPurchase(u.token, 2);
    await db()('payments')
      .where({ id: paymentId })
      .update({ paid_at: db().raw(`now() - interval '181 days'`) });
    await db()('coupon_accounts')
      .where({ user_id: u.user.id })
      .update({ last_paid_payment_at: db().raw(`now() - interval '181 days'`) });
    const r1 = await t.services.coupons.runJob({});
    expect(r1.expired).toBeGreaterThanOrEqual(amount);
    await t.services.coupons.runJob({});
    const rows = await ledger(u.user.id);
    expect(rows.map((r) => [r.kind, r.amount_cents])).toEqual([
      ['credit', amount],
      ['expiry', -amount],
    ]);
    expect(rows[1].note).toContain('180 dias');
    const mine = await t.api('GET', '/api/coupons/mine', { token: u.token });
    expect(mine.body.cents).toBe(0);
    expect(new Date(mine.body.valid_until).getTime()).toBeLessThan(Date.now());
    expect(mine.body.entries[0]).toMatchObject({ kind: 'expiry', cents: -amount });
  });

  test('a new payment after the validity ended first expires the old balance, then credits and renews', async () => {
    const u = await createUser(t);
    const first = await approvedPurchase(u.token, 1);
    await db()('payments')
      .where({ id: first.paymentId })
      .update({ paid_at: db().raw(`now() - interval '200 days'`) });
    await db()('coupon_accounts')
      .where({ user_id: u.user.id })
      .update({ last_paid_payment_at: db().raw(`now() - interval '200 days'`) });
    const second = await approvedPurchase(u.token, 2);
    expect((await ledger(u.user.id)).map((r) => [r.kind, r.amount_cents])).toEqual([
      ['credit', first.amount],
      ['expiry', -first.amount],
      ['credit', second.amount],
    ]);
    const mine = await t.api('GET', '/api/coupons/mine', { token: u.token });
    expect(mine.body.cents).toBe(second.amount);
    expect(new Date(mine.body.valid_until).getTime()).toBeGreaterThan(Date.now() + 179 * 86_400_000);
  });

  test('reading the balance past its validity writes the expiry too', async () => {
    const u = await createUser(t);
    const { amount } = await approvedPurchase(u.token, 1);
    await db()('coupon_accounts')
      .where({ user_id: u.user.id })
      .update({ last_paid_payment_at: db().raw(`now() - interval '190 days'`) });
    const mine = await t.api('GET', '/api/coupons/mine', { token: u.token });
    expect(mine.body.cents).toBe(0);
    expect(mine.body.entries.map((e: { kind: string; cents: number }) => [e.kind, e.cents])).toEqual([
      ['expiry', -amount],
      ['credit', amount],
    ]);
  });
});

test('coupon codes: CV- + 10 Crockford characters, unique, assigned once even when asked concurrently', async () => {
  const users = await Promise.all(Array.from({ length: 12 }, () => createUser(t)));
  const codes = await Promise.all(
    users.flatMap((u) => [t.services.coupons.ensureCode(u.user.id), t.services.coupons.ensureCode(u.user.id)]),
  );
  for (let i = 0; i < users.length; i++) {
    expect(codes[2 * i]).toMatch(COUPON_CODE_RE);
    expect(codes[2 * i + 1]).toBe(codes[2 * i]);
  }
  expect(new Set(codes).size).toBe(users.length);
  const stored = await db()('users')
    .whereIn(
      'id',
      users.map((u) => u.user.id),
    )
    .select('coupon_code');
  expect(stored.map((s) => s.coupon_code).sort()).toEqual([...new Set(codes)].sort());
  // The hourly run gives a code to every account that has none yet.
  const quiet = await createUser(t);
  await t.services.coupons.runJob({});
  expect((await db()('users').where({ id: quiet.user.id }).first()).coupon_code).toMatch(COUPON_CODE_RE);
  expect(await db()('users').whereNull('coupon_code').count<{ c: number }[]>({ c: '*' })).toEqual([{ c: 0 }]);
});

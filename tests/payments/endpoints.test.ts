import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { childProcessEnv, createTestContext, createUser, type TestContext } from '../helpers/context';
import { hasValidCrc, parseBrCode } from '../../src/payments/brcode';
import { writeAppConfig } from '../../src/platform/app-config';
import {
  balanceOf,
  buyEbooks,
  eventually,
  ledgerOf,
  letThrottlePass,
  makeDraw,
  makeProduct,
  makeProductWithDraw,
  paymentRow,
  reserve,
  sandboxBank,
} from './fixtures';

/**
 * Every payment endpoint over HTTP, sandbox provider: happy paths, bad input
 * (400 JSON, never 500), anonymous (401), another user's data (404), wrong role (403).
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
});
afterAll(() => t.close());

/** A JSON error answer with the given status and code; never an HTML page or a stack trace. */
function expectError(r: { status: number; body: any; text: string; headers: Headers }, status: number, code?: string) {
  expect({ status: r.status, body: r.body }).toMatchObject({ status, body: code ? { error: code } : {} });
  expect(r.headers.get('content-type')).toMatch(/application\/json/);
  expect(typeof r.body.error).toBe('string');
  expect(typeof r.body.message).toBe('string');
  expect(r.text).not.toMatch(/at .*\.ts:\d+|<html/i);
}

describe('POST /api/payments/infoproduct', () => {
  test('creates a pending PIX at the server price: QR PNG, BR Code, amount, expiry', async () => {
    const u = await createUser(t);
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
    const before = Date.now();
    const r = await t.api('POST', '/api/payments/infoproduct', {
      token: u.token,
      body: { infoproduct_id: product.id, quantity: 3, amount_cents_total: 1500 },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ status: 'pending', amount: 15, amount_cents: 1500 });
    expect(r.body.paymentId).toEqual(expect.any(Number));
    expect(r.body.copy_paste_code).toBe(r.body.qr_code);
    expect(hasValidCrc(r.body.qr_code)).toBe(true);
    expect(parseBrCode(r.body.qr_code)['54']).toBe('15.00');
    expect(Buffer.from(r.body.qr_code_base64, 'base64').subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );
    const expires = new Date(r.body.expires_at).getTime();
    expect(expires).toBeGreaterThan(before + 29 * 60_000);
    expect(expires).toBeLessThan(Date.now() + 31 * 60_000);
    const row = await paymentRow(t, r.body.paymentId);
    expect(row).toMatchObject({
      user_id: u.user.id,
      kind: 'infoproduct',
      provider: 'sandbox',
      status: 'pending',
      quantity: 3,
      infoproduct_id: product.id,
      draw_id: draw.id,
      amount_cents: 1500,
    });
    expect(row.txid).toBe(parseBrCode(parseBrCode(r.body.qr_code)['62'])['05']);
    // A poll job watches the pending payment.
    const job = await t.services.queue.raw.getJob(`payment-poll-${row.id}`);
    expect(await job?.getState()).toBe('delayed');
    // Nothing granted before approval.
    expect(await balanceOf(t, u.user.id, product.id)).toBeNull();
  });

  test('the unit price is the effective ticket price: draw override, else product price, else config', async () => {
    const u = await createUser(t);
    const withOverride = await makeProductWithDraw(t, { price_cents: 500 }, { ticket_price_cents_override: 350 });
    let r = await t.api('POST', '/api/payments/infoproduct', {
      token: u.token,
      body: { infoproduct_id: withOverride.product.id, quantity: 2, amount_cents_total: 1000 },
    });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ error: 'price_changed', amount_cents_total: 700 });
    r = await t.api('POST', '/api/payments/infoproduct', {
      token: u.token,
      body: { infoproduct_id: withOverride.product.id, quantity: 2, amount_cents_total: 700 },
    });
    expect(r.status).toBe(201);
    expect(r.body.amount_cents).toBe(700);

    // No price on the product: config ticket_price_cents.
    await writeAppConfig(t.services.db, { ticket_price_cents: 250 });
    const noPrice = await makeProductWithDraw(t, { price_cents: null });
    r = await t.api('POST', '/api/payments/infoproduct', {
      token: u.token,
      body: { infoproduct_id: noPrice.product.id, quantity: 4, amount_cents_total: 1000 },
    });
    expect(r.status).toBe(201);
    expect(r.body.amount).toBe(10);

    // No open draw yet: one is opened, and its price is the product's.
    const bare = await makeProduct(t, { price_cents: 123 });
    r = await t.api('POST', '/api/payments/infoproduct', {
      token: u.token,
      body: { infoproduct_id: bare.id, quantity: 20, amount_cents_total: 2460 },
    });
    expect(r.status).toBe(201);
    const opened = await t.services.db('draws').where({ infoproduct_id: bare.id, status: 'open' });
    expect(opened).toHaveLength(1);
    expect((await paymentRow(t, r.body.paymentId)).draw_id).toBe(opened[0].id);
  });

  test('a tampered amount answers 409 price_changed with the server amount and creates nothing', async () => {
    const u = await createUser(t);
    const { product } = await makeProductWithDraw(t, { price_cents: 500 });
    for (const amount of [1, 0, 1499, 1501, 150000]) {
      const r = await t.api('POST', '/api/payments/infoproduct', {
        token: u.token,
        body: { infoproduct_id: product.id, quantity: 3, amount_cents_total: amount },
      });
      expectError(r, 409, 'price_changed');
      expect(r.body).toMatchObject({ amount_cents_total: 1500, unit_price_cents: 500 });
    }
    expect(await t.services.db('payments').where({ user_id: u.user.id })).toHaveLength(0);
  });

  test.each([
    ['empty body', {}],
    ['no quantity', { infoproduct_id: 1, amount_cents_total: 500 }],
    ['quantity 0', { infoproduct_id: 1, quantity: 0, amount_cents_total: 0 }],
    ['quantity 21', { infoproduct_id: 1, quantity: 21, amount_cents_total: 10500 }],
    ['quantity -1', { infoproduct_id: 1, quantity: -1, amount_cents_total: 500 }],
    ['fractional quantity', { infoproduct_id: 1, quantity: 1.5, amount_cents_total: 750 }],
    ['quantity text', { infoproduct_id: 1, quantity: 'três', amount_cents_total: 1500 }],
    ['negative amount', { infoproduct_id: 1, quantity: 1, amount_cents_total: -500 }],
    ['fractional amount', { infoproduct_id: 1, quantity: 1, amount_cents_total: 5.5 }],
    ['amount missing', { infoproduct_id: 1, quantity: 1 }],
    ['product id text', { infoproduct_id: 'abc', quantity: 1, amount_cents_total: 500 }],
    ['product id 0', { infoproduct_id: 0, quantity: 1, amount_cents_total: 500 }],
    ['product id huge', { infoproduct_id: 1e300, quantity: 1, amount_cents_total: 500 }],
    ['an array', [1, 2, 3]],
  ])('bad input (%s) → 400 validation_error', async (_label, body) => {
    const u = await createUser(t);
    const r = await t.api('POST', '/api/payments/infoproduct', { token: u.token, body });
    expectError(r, 400, 'validation_error');
    expect(Array.isArray(r.body.details)).toBe(true);
  });

  test('malformed JSON or a bare JSON string → 400 JSON error, never 500', async () => {
    const u = await createUser(t);
    for (const rawBody of ['{"infoproduct_id": 1, "quantity": ', '"comprar"', 'null']) {
      const r = await t.api('POST', '/api/payments/infoproduct', { token: u.token, rawBody });
      expectError(r, 400);
    }
  });

  test('quantity 20 is the maximum accepted', async () => {
    const u = await createUser(t);
    const { product } = await makeProductWithDraw(t, { price_cents: 100 });
    const ok = await t.api('POST', '/api/payments/infoproduct', {
      token: u.token,
      body: { infoproduct_id: product.id, quantity: 20, amount_cents_total: 2000 },
    });
    expect(ok.status).toBe(201);
    const no = await t.api('POST', '/api/payments/infoproduct', {
      token: u.token,
      body: { infoproduct_id: product.id, quantity: 21, amount_cents_total: 2100 },
    });
    expectError(no, 400, 'validation_error');
    expect(no.body.message).toBe('Limite: até 20 unidades por compra');
  });

  test('unknown product → 404, inactive product → 409', async () => {
    const u = await createUser(t);
    expectError(
      await t.api('POST', '/api/payments/infoproduct', {
        token: u.token,
        body: { infoproduct_id: 99_999_999, quantity: 1, amount_cents_total: 500 },
      }),
      404,
      'infoproduct_not_found',
    );
    const off = await makeProduct(t, { active: false });
    expectError(
      await t.api('POST', '/api/payments/infoproduct', {
        token: u.token,
        body: { infoproduct_id: off.id, quantity: 1, amount_cents_total: 500 },
      }),
      409,
      'infoproduct_inactive',
    );
  });

  test('anonymous or with a bogus token → 401', async () => {
    const { product } = await makeProductWithDraw(t);
    expectError(
      await t.api('POST', '/api/payments/infoproduct', { body: { infoproduct_id: product.id, quantity: 1, amount_cents_total: 500 } }),
      401,
      'unauthenticated',
    );
    expectError(
      await t.api('POST', '/api/payments/infoproduct', {
        token: 'not-a-session',
        body: { infoproduct_id: product.id, quantity: 1, amount_cents_total: 500 },
      }),
      401,
    );
  });
});

describe('GET /api/payments/:id/status', () => {
  test('owner only: pending, then approved once the bank paid (vouchers granted without any confirm)', async () => {
    const u = await createUser(t);
    const other = await createUser(t);
    const { product } = await makeProductWithDraw(t, { price_cents: 500 });
    const p = await buyEbooks(t, u.token, product.id, 2, 500);
    await sandboxBank(t, p.paymentId, 'approved');
    const st = await t.api('GET', `/api/payments/${p.paymentId}/status`, { token: u.token });
    expect(st.status).toBe(200);
    expect(st.body).toMatchObject({ status: 'approved' });
    expect(st.headers.get('cache-control')).toBe('no-store');
    expect(await balanceOf(t, u.user.id, product.id)).toBe(2);
    expectError(await t.api('GET', `/api/payments/${p.paymentId}/status`, { token: other.token }), 404, 'payment_not_found');
    expectError(await t.api('GET', `/api/payments/${p.paymentId}/status`), 401);
  });

  test('asks the provider at most every few seconds per payment (throttled), confirm forces a check', async () => {
    const u = await createUser(t);
    const { product } = await makeProductWithDraw(t, { price_cents: 500 });
    const p = await buyEbooks(t, u.token, product.id, 1, 500);
    expect((await t.api('GET', `/api/payments/${p.paymentId}/status`, { token: u.token })).body.status).toBe('pending');
    const checkedAt = (await paymentRow(t, p.paymentId)).last_checked_at;
    expect(checkedAt).toBeInstanceOf(Date);
    await sandboxBank(t, p.paymentId, 'approved');
    // Within the throttle window nobody asks the bank again.
    const quick = await Promise.all(
      Array.from({ length: 10 }, () => t.api('GET', `/api/payments/${p.paymentId}/status`, { token: u.token })),
    );
    expect(quick.map((r) => r.body.status)).toEqual(Array(10).fill('pending'));
    expect((await paymentRow(t, p.paymentId)).last_checked_at).toEqual(checkedAt);
    // Once the window has passed, the next status call asks and sees the approval (the buyer's
    // answer may be kept ≤ 1 s by the user read cache, platform/user-read-cache.ts: the window is
    // moved by a raw write here, which tells no cache).
    await t.services
      .db('payments')
      .where({ id: p.paymentId })
      .update({ last_checked_at: t.services.db.raw(`now() - interval '4 seconds'`) });
    await eventually(
      async () => (await t.api('GET', `/api/payments/${p.paymentId}/status`, { token: u.token })).body.status === 'approved',
      'the status call to ask the bank and see the approval',
    );
    expect(await balanceOf(t, u.user.id, product.id)).toBe(1);
  });

  test.each(['abc', '0', '-3', '1.5', '99999999999999999999'])('bad id %s → 400 validation_error', async (id) => {
    const u = await createUser(t);
    expectError(await t.api('GET', `/api/payments/${id}/status`, { token: u.token }), 400, 'validation_error');
  });

  test('unknown id → 404', async () => {
    const u = await createUser(t);
    expectError(await t.api('GET', '/api/payments/987654321/status', { token: u.token }), 404, 'payment_not_found');
  });
});

describe('POST /api/purchases/confirm', () => {
  test('before approval → 409 payment_not_approved; after → vouchers granted and the draw to pick in; twice → same, granted once', async () => {
    const u = await createUser(t);
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 }, { max_per_user: 0 });
    const p = await buyEbooks(t, u.token, product.id, 3, 500);
    const early = await t.api('POST', '/api/purchases/confirm', {
      token: u.token,
      body: { payment_id: p.paymentId, infoproduct_id: product.id },
    });
    expectError(early, 409, 'payment_not_approved');
    expect(early.body.status).toBe('pending');
    expect(await balanceOf(t, u.user.id, product.id)).toBeNull();

    await sandboxBank(t, p.paymentId, 'approved');
    // confirm keeps the status call's per-payment throttle: right after the early check it does not ask again.
    expectError(
      await t.api('POST', '/api/purchases/confirm', { token: u.token, body: { payment_id: p.paymentId } }),
      409,
      'payment_not_approved',
    );
    await letThrottlePass(t, p.paymentId);
    const c1 = await t.api('POST', '/api/purchases/confirm', {
      token: u.token,
      body: { payment_id: p.paymentId, infoproduct_id: product.id },
    });
    expect(c1.status).toBe(200);
    expect(c1.body).toMatchObject({
      ok: true,
      payment_id: p.paymentId,
      status: 'approved',
      vouchers_granted: 3,
      infoproduct_id: product.id,
      draw_id: draw.id,
      remaining: 3,
    });
    const c2 = await t.api('POST', '/api/purchases/confirm', { token: u.token, body: { payment_id: p.paymentId } });
    expect(c2.status).toBe(200);
    expect(c2.body).toEqual(c1.body);
    expect(await balanceOf(t, u.user.id, product.id)).toBe(3);
    const l = await ledgerOf(t, p.paymentId);
    expect(l.vouchers).toEqual([{ reason: 'grant', delta: 3, user_id: u.user.id, infoproduct_id: product.id }]);
    expect(l.fulfilments).toHaveLength(1);
    const remaining = await t.api('GET', `/api/vouchers/remaining?draw_id=${draw.id}`, { token: u.token });
    expect(remaining.body).toEqual({ remaining: 3, max: null });
  });

  test("another user's payment → 404; unknown → 404; anonymous → 401; other product → 400", async () => {
    const u = await createUser(t);
    const other = await createUser(t);
    const { product } = await makeProductWithDraw(t, { price_cents: 500 });
    const p = await buyEbooks(t, u.token, product.id, 1, 500);
    await sandboxBank(t, p.paymentId, 'approved');
    expectError(
      await t.api('POST', '/api/purchases/confirm', { token: other.token, body: { payment_id: p.paymentId } }),
      404,
      'payment_not_found',
    );
    expectError(
      await t.api('POST', '/api/purchases/confirm', { token: u.token, body: { payment_id: 987654321 } }),
      404,
      'payment_not_found',
    );
    expectError(await t.api('POST', '/api/purchases/confirm', { body: { payment_id: p.paymentId } }), 401);
    expectError(
      await t.api('POST', '/api/purchases/confirm', {
        token: u.token,
        body: { payment_id: p.paymentId, infoproduct_id: product.id + 1000 },
      }),
      400,
      'infoproduct_mismatch',
    );
    // None of these granted anything, to anyone.
    expect(await balanceOf(t, other.user.id, product.id)).toBeNull();
    expect(await balanceOf(t, u.user.id, product.id)).toBeNull();
  });

  test.each([
    ['empty body', {}],
    ['payment id text', { payment_id: 'abc' }],
    ['payment id 0', { payment_id: 0 }],
    ['payment id negative', { payment_id: -4 }],
    ['product id text', { payment_id: 1, infoproduct_id: 'x' }],
    ['an array', [1]],
  ])('bad input (%s) → 400 validation_error', async (_label, body) => {
    const u = await createUser(t);
    expectError(await t.api('POST', '/api/purchases/confirm', { token: u.token, body }), 400, 'validation_error');
  });

  test('a rejected payment cannot be confirmed (409) and grants nothing', async () => {
    const u = await createUser(t);
    const { product } = await makeProductWithDraw(t, { price_cents: 500 });
    const p = await buyEbooks(t, u.token, product.id, 1, 500);
    await sandboxBank(t, p.paymentId, 'rejected');
    const r = await t.api('POST', '/api/purchases/confirm', { token: u.token, body: { payment_id: p.paymentId } });
    expectError(r, 409, 'payment_not_approved');
    expect(r.body.status).toBe('rejected');
    expect((await ledgerOf(t, p.paymentId)).fulfilments).toHaveLength(0);
  });
});

describe('POST /api/payments/pix (reservation)', () => {
  test("charges the reservation's numbers at the draw price, extends the hold to the PIX expiry, reuses the pending code", async () => {
    const u = await createUser(t);
    const { draw } = await makeProductWithDraw(t, { price_cents: 500 }, { ticket_price_cents_override: 300 });
    const res = await reserve(t, u.token, draw.id, [7, 3]);
    const r = await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: res.id } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ status: 'pending', amount: 6, amount_cents: 600 });
    expect(hasValidCrc(r.body.copy_paste_code)).toBe(true);
    const row = await paymentRow(t, r.body.paymentId);
    expect(row).toMatchObject({ kind: 'reservation', reservation_id: res.id, draw_id: draw.id, numbers: [3, 7], amount_cents: 600 });
    const held = await t.services.db('reservations').where({ id: res.id }).first();
    expect(held.status).toBe('active');
    expect(held.expires_at.getTime()).toBe(new Date(r.body.expires_at).getTime());
    expect(held.expires_at.getTime()).toBeGreaterThan(new Date(res.expires_at).getTime());

    // Again (also with the snake_case key): the same payment and code, nothing new.
    const again = await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservation_id: res.id } });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({
      paymentId: r.body.paymentId,
      copy_paste_code: r.body.copy_paste_code,
      qr_code_base64: r.body.qr_code_base64,
    });
    expect(await t.services.db('payments').where({ reservation_id: res.id })).toHaveLength(1);

    // Paid: the numbers are the payer's, the reservation is paid.
    await sandboxBank(t, r.body.paymentId, 'approved');
    expect((await t.api('GET', `/api/payments/${r.body.paymentId}/status`, { token: u.token })).body.status).toBe('approved');
    const cells = await t.services.db('draw_numbers').where({ draw_id: draw.id }).whereIn('n', [3, 7]).orderBy('n');
    expect(cells.map((c) => [c.n, c.status, c.owner_user_id, c.payment_id])).toEqual([
      [3, 'sold', u.user.id, r.body.paymentId],
      [7, 'sold', u.user.id, r.body.paymentId],
    ]);
    expect((await t.services.db('reservations').where({ id: res.id }).first()).status).toBe('paid');
    const l = await ledgerOf(t, r.body.paymentId);
    expect(l.sales.map((s) => s.n)).toEqual([3, 7]);
    expect(l.fulfilments[0].result).toMatchObject({ sold: [3, 7], draw_id: draw.id });
    expect(l.vouchers).toEqual([]);
    // A paid reservation cannot get another PIX.
    expectError(await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: res.id } }), 400, 'reservation_inactive');
  });

  test('a draw without product charges the config ticket price', async () => {
    const u = await createUser(t);
    await writeAppConfig(t.services.db, { ticket_price_cents: 250 });
    const draw = await makeDraw(t, { infoproduct_id: null });
    const res = await reserve(t, u.token, draw.id, [1, 2, 3]);
    const r = await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: res.id } });
    expect(r.status).toBe(201);
    expect(r.body.amount_cents).toBe(750);
  });

  test('the hold is gone (expired, released, consumed) → 400 reservation_inactive', async () => {
    const u = await createUser(t);
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
    // Past its time but not yet swept.
    const a = await reserve(t, u.token, draw.id, [10]);
    await t.services
      .db('reservations')
      .where({ id: a.id })
      .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
    expectError(await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: a.id } }), 400, 'reservation_inactive');
    // Released by the expiry job.
    expect(await t.services.reservations.expire(a.id)).toBe(true);
    expectError(await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: a.id } }), 400, 'reservation_inactive');
    // Consumed with vouchers.
    await t.services.payments.grantVouchers({ user: String(u.user.id), product: String(product.id), quantity: 1 }, { via: 'cli' });
    const b = await reserve(t, u.token, draw.id, [11]);
    expect((await t.api('POST', '/api/vouchers/consume', { token: u.token, body: { reservationId: b.id, numbers: [11] } })).status).toBe(
      200,
    );
    expectError(await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: b.id } }), 400, 'reservation_inactive');
    expect(await t.services.db('payments').whereIn('reservation_id', [a.id, b.id])).toHaveLength(0);
  });

  test("another user's reservation → 404, unknown → 404, anonymous → 401, bad input → 400", async () => {
    const u = await createUser(t);
    const other = await createUser(t);
    const { draw } = await makeProductWithDraw(t);
    const res = await reserve(t, u.token, draw.id, [20]);
    expectError(
      await t.api('POST', '/api/payments/pix', { token: other.token, body: { reservationId: res.id } }),
      404,
      'reservation_not_found',
    );
    expectError(
      await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: 987654321 } }),
      404,
      'reservation_not_found',
    );
    expectError(await t.api('POST', '/api/payments/pix', { body: { reservationId: res.id } }), 401);
    for (const body of [{}, { reservationId: 'abc' }, { reservationId: 0 }, { reservationId: -1 }, { reservationId: 1.5 }, []]) {
      expectError(await t.api('POST', '/api/payments/pix', { token: u.token, body }), 400, 'validation_error');
    }
    expect(await t.services.db('payments').where({ reservation_id: res.id })).toHaveLength(0);
  });
});

describe('GET /api/payments/me', () => {
  test("lists only the caller's payments, newest first; the QR is only shown while pending", async () => {
    const u = await createUser(t);
    const other = await createUser(t);
    const { product } = await makeProductWithDraw(t, { price_cents: 500 });
    const a = await buyEbooks(t, u.token, product.id, 1, 500);
    const b = await buyEbooks(t, u.token, product.id, 2, 500);
    await buyEbooks(t, other.token, product.id, 1, 500);
    await sandboxBank(t, a.paymentId, 'approved');
    await t.api('POST', '/api/purchases/confirm', { token: u.token, body: { payment_id: a.paymentId } });
    const r = await t.api('GET', '/api/payments/me', { token: u.token });
    expect(r.status).toBe(200);
    expect(r.body.items.map((p: any) => p.id)).toEqual([b.paymentId, a.paymentId]);
    const [pb, pa] = r.body.items;
    expect(pb).toMatchObject({
      status: 'pending',
      quantity: 2,
      amount_cents: 1000,
      infoproduct_id: product.id,
      copy_paste_code: b.copy_paste_code,
    });
    expect(pa).toMatchObject({ status: 'approved', quantity: 1, qr_code: null, qr_code_base64: null, copy_paste_code: null });
    expect(pa.paid_at).toEqual(expect.any(String));
    expectError(await t.api('GET', '/api/payments/me'), 401);
  });
});

describe('approval paths of the sandbox', () => {
  test('POST /api/admin/payments/:id/approve: admin only (401/403), approves and fulfils once, idempotent', async () => {
    const u = await createUser(t);
    const admin = await createUser(t, { admin: true });
    const { product } = await makeProductWithDraw(t, { price_cents: 500 });
    const p = await buyEbooks(t, u.token, product.id, 2, 500);
    expectError(await t.api('POST', `/api/admin/payments/${p.paymentId}/approve`), 401);
    expectError(await t.api('POST', `/api/admin/payments/${p.paymentId}/approve`, { token: u.token }), 403, 'forbidden');
    expect((await paymentRow(t, p.paymentId)).status).toBe('pending');

    const r1 = await t.api('POST', `/api/admin/payments/${p.paymentId}/approve`, { token: admin.token });
    expect(r1.status).toBe(200);
    expect(r1.body).toMatchObject({ paymentId: p.paymentId, status: 'approved' });
    const r2 = await t.api('POST', `/api/admin/payments/${p.paymentId}/approve`, { token: admin.token });
    expect(r2.body.status).toBe('approved');
    expect(await balanceOf(t, u.user.id, product.id)).toBe(2);
    expect((await ledgerOf(t, p.paymentId)).granted).toBe(2);
    const audits = await t.services
      .db('audit_log')
      .where({ entity: 'payment', entity_id: String(p.paymentId), action: 'payment.sandbox_approved' });
    expect(audits[0]).toMatchObject({ actor: 'admin', actor_user_id: admin.user.id });

    expectError(await t.api('POST', '/api/admin/payments/abc/approve', { token: admin.token }), 400, 'validation_error');
    expectError(await t.api('POST', '/api/admin/payments/987654321/approve', { token: admin.token }), 404, 'payment_not_found');
  });

  test('`cotaverde payments approve <id>` (the real CLI, as a child process) approves and fulfils', async () => {
    const u = await createUser(t);
    const { product } = await makeProductWithDraw(t, { price_cents: 500 });
    const p = await buyEbooks(t, u.token, product.id, 4, 500);
    const env = childProcessEnv(t);
    const bin = path.resolve(__dirname, '../../cli/bin.cjs');
    const run = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8', timeout: 60_000 });
    const ok = run('payments', 'approve', String(p.paymentId));
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    expect(ok.stdout.trim()).toBe(`pagamento #${p.paymentId}: approved`);
    expect(await balanceOf(t, u.user.id, product.id)).toBe(4);
    expect((await ledgerOf(t, p.paymentId)).fulfilments).toHaveLength(1);

    const bad = run('payments', 'approve', 'x1');
    expect(bad.status).toBe(2); // a usage error: the id is not a number
    expect(bad.stderr).toMatch(/id do pagamento/);
  });

  test('SANDBOX_AUTO_APPROVE_SECONDS approves by itself after the delay', async () => {
    const auto = await createTestContext({ env: { SANDBOX_AUTO_APPROVE_SECONDS: '1' } });
    try {
      const u = await createUser(auto);
      const product = await makeProduct(auto, { price_cents: 500 });
      await makeDraw(auto, { infoproduct_id: product.id });
      const p = await buyEbooks(auto, u.token, product.id, 2, 500);
      await auto.services.db('payments').where({ id: p.paymentId }).update({ last_checked_at: null });
      const status = await eventually(
        async () => {
          await auto.services.db('payments').where({ id: p.paymentId }).update({ last_checked_at: null });
          const r = await auto.api('GET', `/api/payments/${p.paymentId}/status`, { token: u.token });
          return r.body.status === 'approved' ? r.body.status : null;
        },
        'auto approval',
        10_000,
        200,
      );
      expect(status).toBe('approved');
      expect(await balanceOf(auto, u.user.id, product.id)).toBe(2);
      const charge = await auto.services
        .db('sandbox_charges')
        .where({ external_reference: String(p.paymentId) })
        .first();
      expect(charge.status).toBe('approved');
    } finally {
      await auto.close();
    }
  });
});

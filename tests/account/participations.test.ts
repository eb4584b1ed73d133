import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { buyEbooks, makeProductWithDraw, reserve } from '../payments/fixtures';
import { sellDirectly } from '../draws/fixtures';
import type { ParticipationItem } from '../../src/shared/api/account';

/**
 * GET /api/payments/me (every way the user got numbers or vouchers) and
 * GET /api/me/reservations?active=1, over real HTTP against the real database.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
});
afterAll(() => t.close());

const approve = (paymentId: number) => t.services.payments.approveSandbox(paymentId, { via: 'cli' });

describe('GET /api/payments/me', () => {
  test('lists e-book and reservation payments, voucher confirmations and admin assignments, newest first; the rows cover every owned number', async () => {
    const u = await createUser(t);
    const other = await createUser(t);
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });

    // 1. two e-books by PIX, approved: two vouchers.
    const ebook = await buyEbooks(t, u.token, product.id, 2, 500);
    await approve(ebook.paymentId);
    // 2. both vouchers used on 10 and 11.
    const held = await reserve(t, u.token, draw.id, [11, 10]);
    const consumed = await t.api('POST', '/api/vouchers/consume', { token: u.token, body: { reservationId: held.id, numbers: [10, 11] } });
    expect(consumed.status).toBe(200);
    // 3. number 20 bought by reservation PIX, approved.
    const r20 = await reserve(t, u.token, draw.id, [20]);
    const pix20 = await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: r20.id } });
    expect(pix20.status).toBe(201);
    await approve(pix20.body.paymentId);
    // 4. an admin grant of vouchers and an admin assignment of number 40 without payment.
    const granted = await t.services.payments.grantVouchers({ user: String(u.user.id), product: product.sku, quantity: 3 }, { via: 'cli' });
    await sellDirectly(t, draw.id, u.user.id, [40]);
    // 5. number 30 by reservation PIX, still pending.
    const r30 = await reserve(t, u.token, draw.id, [30]);
    const pix30 = await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: r30.id } });
    // Someone else's purchase in the same draw.
    await buyEbooks(t, other.token, product.id, 1, 500);

    const r = await t.api('GET', '/api/payments/me', { token: u.token });
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    const items: Array<ParticipationItem & Record<string, unknown>> = r.body.items;
    expect(items.map((i) => [i.kind, i.numbers])).toEqual([
      ['reservation', [30]],
      ['admin', [40]],
      ['admin', []],
      ['reservation', [20]],
      ['voucher', [10, 11]],
      ['ebook', []],
    ]);
    const times = items.map((i) => Date.parse(i.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const [pending, assigned, grant, paid20, voucher, ebookItem] = items;
    expect(pending).toMatchObject({
      id: pix30.body.paymentId,
      status: 'pending',
      draw_id: draw.id,
      reservation_id: r30.id,
      amount_cents: 500,
      paid_at: null,
    });
    expect(pending.pix).toEqual({
      qr_code: pix30.body.qr_code,
      qr_code_base64: pix30.body.qr_code_base64,
      copy_paste: pix30.body.qr_code,
      txid: pix30.body.txid,
    });
    expect(pending.expires_at).toEqual(expect.any(String));
    // The fields the purchase flow already read are still there.
    expect(pending).toMatchObject({
      paymentId: pix30.body.paymentId,
      copy_paste_code: pix30.body.copy_paste_code,
      qr_code_base64: pix30.body.qr_code_base64,
    });
    expect(assigned).toMatchObject({ status: 'approved', amount_cents: 0, draw_id: draw.id, pix: null });
    expect(grant).toMatchObject({
      id: granted.paymentId,
      status: 'approved',
      amount_cents: 0,
      quantity: 3,
      vouchers_granted: 3,
      infoproduct_id: product.id,
      draw_id: null,
    });
    expect(paid20).toMatchObject({
      id: pix20.body.paymentId,
      status: 'approved',
      amount_cents: 500,
      pix: null,
      qr_code: null,
      reservation_id: r20.id,
    });
    expect(paid20.paid_at).toEqual(expect.any(String));
    expect(voucher).toMatchObject({
      status: 'approved',
      amount_cents: 0,
      draw_id: draw.id,
      infoproduct_id: product.id,
      reservation_id: held.id,
      pix: null,
    });
    expect(ebookItem).toMatchObject({
      id: ebook.paymentId,
      status: 'approved',
      quantity: 2,
      vouchers_granted: 2,
      amount_cents: 1000,
      infoproduct_id: product.id,
    });
    expect(paid20.draw).toEqual({
      id: draw.id,
      title: draw.title,
      status: 'open',
      result: 'open',
      infoproduct_id: product.id,
      sku: product.sku,
      winner_number: null,
      won: null,
    });

    // Every number the user owns appears in an approved row.
    const owned = (await t.services.db('draw_numbers').where({ owner_user_id: u.user.id }).orderBy('n')).map((c) => `${c.draw_id}:${c.n}`);
    const shown = items.filter((i) => i.status === 'approved').flatMap((i) => i.numbers.map((n) => `${i.draw_id}:${n}`));
    expect([...shown].sort()).toEqual([...owned].sort());

    // The other user sees only their own purchase.
    const theirs = await t.api('GET', '/api/payments/me', { token: other.token });
    expect(theirs.body.items.map((i: ParticipationItem) => i.kind)).toEqual(['ebook']);
  });

  test('a drawn draw says whether the caller won', async () => {
    const u = await createUser(t);
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
    await sellDirectly(t, draw.id, u.user.id, [7]);
    await t.services.db('draws').where({ id: draw.id }).update({
      status: 'drawn',
      closed_at: t.services.db.fn.now(),
      realized_at: t.services.db.fn.now(),
      winner_user_id: u.user.id,
      winner_number: 7,
    });
    const r = await t.api('GET', '/api/payments/me', { token: u.token });
    expect(r.body.items).toHaveLength(1);
    expect(r.body.items[0]).toMatchObject({
      kind: 'admin',
      numbers: [7],
      infoproduct_id: product.id,
      draw: { status: 'sorteado', result: 'contemplado', winner_number: 7, won: true },
      result: 'contemplado',
    });
  });

  test('anonymous: 401', async () => {
    const r = await t.api('GET', '/api/payments/me');
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ error: 'unauthenticated', message: expect.stringContaining('login') });
  });
});

describe('GET /api/me/reservations?active=1', () => {
  test("only the caller's active holds; bad input 400; anonymous 401", async () => {
    const u = await createUser(t);
    const other = await createUser(t);
    const { draw } = await makeProductWithDraw(t, { price_cents: 500 });
    const a = await reserve(t, u.token, draw.id, [1, 2]);
    const b = await reserve(t, u.token, draw.id, [3]);
    await reserve(t, other.token, draw.id, [4]);
    await t.services
      .db('reservations')
      .where({ id: b.id })
      .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });

    const active = await t.api('GET', '/api/me/reservations?active=1', { token: u.token });
    expect(active.status).toBe(200);
    expect(active.body.items.map((i: { id: number; numbers: number[] }) => [i.id, i.numbers])).toEqual([[a.id, [1, 2]]]);
    const all = await t.api('GET', '/api/me/reservations', { token: u.token });
    expect(all.body.items.map((i: { id: number }) => i.id)).toEqual([b.id, a.id]);

    const bad = await t.api('GET', '/api/me/reservations?active=talvez', { token: u.token });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('validation_error');
    expect((await t.api('GET', '/api/me/reservations?active=1')).status).toBe(401);
  });
});

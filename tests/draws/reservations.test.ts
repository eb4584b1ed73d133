import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { writeAppConfig } from '../../src/platform/app-config';
import { grant, makeDraw, makeProductWithDraw, sellDirectly } from './fixtures';

/** POST /api/reservations, POST /api/vouchers/consume, GET /api/me/reservations. */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

const reserve = (token: string | undefined, body: unknown) => t.api('POST', '/api/reservations', { token, body });
const consume = (token: string | undefined, body: unknown) => t.api('POST', '/api/vouchers/consume', { token, body });

async function cells(drawId: number, numbers: number[]) {
  const rows = await t.services
    .db('draw_numbers')
    .where({ draw_id: drawId })
    .whereIn('n', numbers)
    .orderBy('n')
    .select('n', 'status', 'reservation_id', 'owner_user_id');
  return rows;
}

function expectValidationError(r: { status: number; body: any }, error = 'validation_error') {
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({ error, message: expect.any(String) });
}

describe('POST /api/reservations', () => {
  test('anonymous → 401, nothing held', async () => {
    const { draw } = await makeProductWithDraw(t);
    const r = await reserve(undefined, { draw_id: draw.id, numbers: [1] });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: 'unauthenticated', message: expect.any(String) });
    expect((await cells(draw.id, [1]))[0].status).toBe('available');
  });

  test('holds the numbers for reservation_ttl_minutes and answers the reservation', async () => {
    await writeAppConfig(t.services.db, { reservation_ttl_minutes: 15 });
    const { draw } = await makeProductWithDraw(t);
    const u = await createUser(t);
    const before = Date.now();
    const r = await reserve(u.token, { draw_id: draw.id, numbers: [42, 7, 99] });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      reservationId: expect.any(Number),
      reservation_id: r.body.reservationId,
      id: r.body.reservationId,
      draw_id: draw.id,
      numbers: [7, 42, 99],
      status: 'active',
    });
    const ttl = new Date(r.body.expires_at).getTime() - before;
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThan(16 * 60_000);
    const c = await cells(draw.id, [7, 42, 99]);
    expect(c.every((x) => x.status === 'reserved' && x.reservation_id === r.body.reservationId)).toBe(true);
    // A delayed expiry job was scheduled for it.
    const delayed = await t.services.queue.raw.getDelayed();
    expect(delayed.some((j) => j.name === 'reservation.expire' && j.data.reservationId === r.body.reservationId)).toBe(true);
  });

  test('numbers must be unique integers in [0, total_numbers)', async () => {
    const { draw } = await makeProductWithDraw(t, {}, { total_numbers: 50 });
    const u = await createUser(t);
    expectValidationError(await reserve(u.token, { draw_id: draw.id, numbers: [50] }), 'number_out_of_range');
    expectValidationError(await reserve(u.token, { draw_id: draw.id, numbers: [1, 1000] }), 'number_out_of_range');
    expectValidationError(await reserve(u.token, { draw_id: draw.id, numbers: [2 ** 40] }), 'number_out_of_range');
    expectValidationError(await reserve(u.token, { draw_id: draw.id, numbers: [Number.MAX_SAFE_INTEGER] }), 'number_out_of_range');
    expectValidationError(await reserve(u.token, { draw_id: draw.id, numbers: [-1] }));
    expectValidationError(await reserve(u.token, { draw_id: draw.id, numbers: [1.5] }));
    expectValidationError(await reserve(u.token, { draw_id: draw.id, numbers: ['3'] }));
    expectValidationError(await reserve(u.token, { draw_id: draw.id, numbers: [] }));
    expectValidationError(await reserve(u.token, { draw_id: draw.id, numbers: 'all' }));
    expectValidationError(await reserve(u.token, { draw_id: draw.id }));
    expectValidationError(await reserve(u.token, { numbers: [1] }));
    expectValidationError(await reserve(u.token, { draw_id: 'abc', numbers: [1] }));
    const dup = await reserve(u.token, { draw_id: draw.id, numbers: [4, 4] });
    expectValidationError(dup);
    expect(dup.body.details[0].message).toMatch(/repetidos/);
    // Nothing was held by any of these.
    expect(await t.services.db('reservations').where({ user_id: u.user.id })).toHaveLength(0);
    expect(await t.services.db('draw_numbers').where({ draw_id: draw.id }).whereNot({ status: 'available' })).toHaveLength(0);
  });

  test('more than max_numbers_per_selection → 400', async () => {
    const { draw } = await makeProductWithDraw(t);
    const u = await createUser(t);
    await writeAppConfig(t.services.db, { max_numbers_per_selection: 5 });
    expectValidationError(await reserve(u.token, { draw_id: draw.id, numbers: [1, 2, 3, 4, 5, 6] }), 'too_many_numbers');
    expect((await reserve(u.token, { draw_id: draw.id, numbers: [1, 2, 3, 4, 5] })).status).toBe(201);
    await writeAppConfig(t.services.db, { max_numbers_per_selection: 2 });
    expectValidationError(await reserve(u.token, { draw_id: draw.id, numbers: [10, 11, 12] }), 'too_many_numbers');
    expect((await cells(draw.id, [10, 11, 12])).every((c) => c.status === 'available')).toBe(true);
    await writeAppConfig(t.services.db, { max_numbers_per_selection: 5 });
  });

  test('unknown draw → 404; closed draw → 409', async () => {
    const u = await createUser(t);
    const r = await reserve(u.token, { draw_id: 987654, numbers: [1] });
    expect(r.status).toBe(404);
    expect(r.body.error).toBe('draw_not_found');
    const closed = await makeDraw(t, { status: 'closed' });
    const c = await reserve(u.token, { draw_id: closed.id, numbers: [1] });
    expect(c.status).toBe(409);
    expect(c.body).toEqual({ error: 'draw_closed', message: expect.any(String) });
    expect((await cells(closed.id, [1]))[0].status).toBe('available');
  });

  test('per-user limit: owned + held + requested ≤ max_per_user', async () => {
    const { draw } = await makeProductWithDraw(t, {}, { max_per_user: 3 });
    const u = await createUser(t);
    await sellDirectly(t, draw.id, u.user.id, [0]);
    let r = await reserve(u.token, { draw_id: draw.id, numbers: [1, 2, 3] });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ error: 'limit_exceeded', max: 3, owned: 1, held: 0 });
    r = await reserve(u.token, { draw_id: draw.id, numbers: [1] });
    expect(r.status).toBe(201);
    r = await reserve(u.token, { draw_id: draw.id, numbers: [2, 3] });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ error: 'limit_exceeded', owned: 1, held: 1 });
    r = await reserve(u.token, { draw_id: draw.id, numbers: [2] });
    expect(r.status).toBe(201);
    r = await reserve(u.token, { draw_id: draw.id, numbers: [3] });
    expect(r.status).toBe(409);
    expect((await cells(draw.id, [3]))[0].status).toBe('available');
    // Another user is not affected by this user's numbers.
    const v = await createUser(t);
    expect((await reserve(v.token, { draw_id: draw.id, numbers: [3, 4, 5] })).status).toBe(201);
  });

  test('a taken number → 409 numbers_conflict with the conflicts, and nothing is held', async () => {
    const { draw } = await makeProductWithDraw(t);
    const a = await createUser(t);
    const b = await createUser(t);
    expect((await reserve(a.token, { draw_id: draw.id, numbers: [20] })).status).toBe(201);
    await sellDirectly(t, draw.id, a.user.id, [22]);
    const r = await reserve(b.token, { draw_id: draw.id, numbers: [19, 20, 21, 22, 23] });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ error: 'numbers_conflict', conflicts: [20, 22], message: expect.stringContaining('20, 22') });
    expect((await cells(draw.id, [19, 21, 23])).map((c) => c.status)).toEqual(['available', 'available', 'available']);
    expect(await t.services.db('reservations').where({ user_id: b.user.id })).toHaveLength(0);
    // The same user cannot hold a number twice either.
    const again = await reserve(a.token, { draw_id: draw.id, numbers: [20] });
    expect(again.status).toBe(409);
    expect(again.body.conflicts).toEqual([20]);
  });
  test('a number being taken by a request in flight is a conflict, not a wait', async () => {
    const { draw } = await makeProductWithDraw(t);
    const u = await createUser(t);
    // Another transaction is in the middle of taking number 50 (row lock held, not committed).
    const inFlight = await t.services.db.transaction();
    try {
      await inFlight('draw_numbers').where({ draw_id: draw.id, n: 50 }).forUpdate().select('n');
      // Answered while that lock is still held (a wait would never return before the rollback below).
      const r = await reserve(u.token, { draw_id: draw.id, numbers: [49, 50] });
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ error: 'numbers_conflict', conflicts: [50] });
      expect((await cells(draw.id, [49, 50])).map((c) => c.status)).toEqual(['available', 'available']);
    } finally {
      await inFlight.rollback();
    }
    expect((await reserve(u.token, { draw_id: draw.id, numbers: [49, 50] })).status).toBe(201);
  });
});

describe('POST /api/vouchers/consume', () => {
  async function setup(o: { vouchers?: number; numbers?: number[]; max_per_user?: number } = {}) {
    const { product, draw } = await makeProductWithDraw(t, {}, { max_per_user: o.max_per_user ?? 0 });
    const u = await createUser(t);
    if (o.vouchers) await grant(t, u.user.id, product.id, o.vouchers);
    const r = await reserve(u.token, { draw_id: draw.id, numbers: o.numbers ?? [5, 6] });
    expect(r.status).toBe(201);
    return { product, draw, u, reservationId: r.body.reservationId as number };
  }

  test('success: sold to the caller, vouchers debited, exact body', async () => {
    const { product, draw, u, reservationId } = await setup({ vouchers: 3 });
    const r = await consume(u.token, { numbers: [6, 5], reservationId, reservation_id: reservationId, draw_id: draw.id, user_id: 12345 });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      ok: true,
      message: 'Números confirmados com sucesso! Boa sorte',
      draw_id: draw.id,
      numbers: [5, 6],
      remaining: 1,
      sold_out: false,
      next_draw_id: null,
    });
    expect((await cells(draw.id, [5, 6])).map((c) => [c.status, c.owner_user_id, c.reservation_id])).toEqual([
      ['sold', u.user.id, null],
      ['sold', u.user.id, null],
    ]);
    expect(await t.services.db('number_sales').where({ draw_id: draw.id }).orderBy('n').select('n', 'user_id', 'source')).toEqual([
      { n: 5, user_id: u.user.id, source: 'voucher' },
      { n: 6, user_id: u.user.id, source: 'voucher' },
    ]);
    expect((await t.services.db('voucher_balances').where({ user_id: u.user.id, infoproduct_id: product.id }).first()).balance).toBe(1);
    expect(
      await t.services.db('voucher_ledger').where({ user_id: u.user.id, reason: 'consume' }).select('delta', 'draw_id', 'reservation_id'),
    ).toEqual([{ delta: -2, draw_id: draw.id, reservation_id: reservationId }]);
    expect((await t.services.db('reservations').where({ id: reservationId }).first()).status).toBe('consumed');
    // The user_id in the body is ignored: the caller is the buyer.
    expect(await t.services.db('number_sales').where({ user_id: 12345 })).toHaveLength(0);

    // Consuming the same reservation again is a conflict, and charges nothing.
    const again = await consume(u.token, { numbers: [5, 6], reservationId });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('numbers_conflict');
    expect((await t.services.db('voucher_balances').where({ user_id: u.user.id, infoproduct_id: product.id }).first()).balance).toBe(1);
  });

  test('anonymous → 401', async () => {
    const { reservationId } = await setup({ vouchers: 2 });
    const r = await consume(undefined, { numbers: [5, 6], reservationId });
    expect(r.status).toBe(401);
  });

  test("another user's reservation → 404, nothing sold", async () => {
    const { draw, reservationId } = await setup({ vouchers: 2 });
    const thief = await createUser(t);
    await grant(t, thief.user.id, draw.infoproduct_id as number, 5);
    const r = await consume(thief.token, { numbers: [5, 6], reservationId });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: 'reservation_not_found', message: expect.any(String) });
    const missing = await consume(thief.token, { numbers: [5, 6], reservationId: 987654 });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('reservation_not_found');
    expect((await cells(draw.id, [5, 6])).map((c) => c.status)).toEqual(['reserved', 'reserved']);
  });

  test('numbers not in the reservation → 409 numbers_conflict', async () => {
    const { draw, u, reservationId } = await setup({ vouchers: 3 });
    const r = await consume(u.token, { numbers: [5, 7], reservationId });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ error: 'numbers_conflict', conflicts: [7] });
    expect((await cells(draw.id, [5, 6, 7])).map((c) => c.status)).toEqual(['reserved', 'reserved', 'available']);
    // A subset of the reservation is not a confirmation of it.
    const sub = await consume(u.token, { numbers: [5], reservationId });
    expectValidationError(sub, 'reservation_mismatch');
    expect(await t.services.db('number_sales').where({ draw_id: draw.id })).toHaveLength(0);
  });

  test('validation: missing reservationId or numbers, duplicates, wrong draw', async () => {
    const { draw, u, reservationId } = await setup({ vouchers: 3 });
    expectValidationError(await consume(u.token, { numbers: [5, 6] }));
    expectValidationError(await consume(u.token, { reservationId }));
    expectValidationError(await consume(u.token, { reservationId, numbers: [5, 5] }));
    expectValidationError(await consume(u.token, { reservationId, numbers: [5, 6], draw_id: draw.id + 1000 }), 'draw_mismatch');
    expect((await cells(draw.id, [5, 6])).map((c) => c.status)).toEqual(['reserved', 'reserved']);
  });

  test('not enough vouchers → 409 insufficient_vouchers and nothing sold', async () => {
    const { product, draw, u, reservationId } = await setup({ vouchers: 1, numbers: [1, 2] });
    const r = await consume(u.token, { numbers: [1, 2], reservationId });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ error: 'insufficient_vouchers', remaining: 1 });
    expect((await cells(draw.id, [1, 2])).map((c) => [c.status, c.reservation_id])).toEqual([
      ['reserved', reservationId],
      ['reserved', reservationId],
    ]);
    expect(await t.services.db('number_sales').where({ draw_id: draw.id })).toHaveLength(0);
    expect((await t.services.db('voucher_balances').where({ user_id: u.user.id, infoproduct_id: product.id }).first()).balance).toBe(1);
    expect((await t.services.db('reservations').where({ id: reservationId }).first()).status).toBe('active');
    // Without any vouchers at all.
    const { u: poor, reservationId: r2 } = await setup({ vouchers: 0, numbers: [9] });
    const p = await consume(poor.token, { numbers: [9], reservationId: r2 });
    expect(p.status).toBe(409);
    expect(p.body).toMatchObject({ error: 'insufficient_vouchers', remaining: 0 });
    // After buying one more, the same reservation goes through.
    await grant(t, u.user.id, product.id, 1);
    expect((await consume(u.token, { numbers: [1, 2], reservationId })).status).toBe(200);
  });

  test('expired reservation → 409 (before and after the release)', async () => {
    const { draw, u, reservationId } = await setup({ vouchers: 2 });
    await t.services
      .db('reservations')
      .where({ id: reservationId })
      .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
    const r = await consume(u.token, { numbers: [5, 6], reservationId });
    expect(r.status).toBe(409);
    expect(r.body.error).toBe('numbers_conflict');
    expect(await t.services.reservations.expire(reservationId)).toBe(true);
    const after = await consume(u.token, { numbers: [5, 6], reservationId });
    expect(after.status).toBe(409);
    expect(after.body).toMatchObject({ error: 'numbers_conflict', conflicts: [5, 6] });
    expect((await cells(draw.id, [5, 6])).map((c) => c.status)).toEqual(['available', 'available']);
    expect(await t.services.db('number_sales').where({ draw_id: draw.id })).toHaveLength(0);
  });

  test('the per-user limit is checked again at consumption', async () => {
    const { draw, u, reservationId } = await setup({ vouchers: 5, numbers: [1, 2], max_per_user: 2 });
    // The operator lowers the limit while the numbers are held.
    await t.services.db('draws').where({ id: draw.id }).update({ max_per_user: 1 });
    const r = await consume(u.token, { numbers: [1, 2], reservationId });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ error: 'limit_exceeded', max: 1 });
    expect(await t.services.db('number_sales').where({ draw_id: draw.id })).toHaveLength(0);
  });

  test('a closed draw → 409 draw_closed', async () => {
    const { draw, u, reservationId } = await setup({ vouchers: 2 });
    await t.services.db('draws').where({ id: draw.id }).update({ status: 'closed', closed_at: new Date() });
    const r = await consume(u.token, { numbers: [5, 6], reservationId });
    expect(r.status).toBe(409);
    expect(r.body.error).toBe('draw_closed');
  });
});

describe('GET /api/me/reservations', () => {
  test('only mine; active=1 keeps live holds only; anonymous → 401', async () => {
    const { product, draw } = await makeProductWithDraw(t);
    const me = await createUser(t);
    const other = await createUser(t);
    await grant(t, me.user.id, product.id, 1);
    const live = (await reserve(me.token, { draw_id: draw.id, numbers: [30, 31] })).body;
    const used = (await reserve(me.token, { draw_id: draw.id, numbers: [32] })).body;
    expect((await consume(me.token, { numbers: [32], reservationId: used.reservationId })).status).toBe(200);
    const stale = (await reserve(me.token, { draw_id: draw.id, numbers: [33] })).body;
    await t.services
      .db('reservations')
      .where({ id: stale.reservationId })
      .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
    const theirs = (await reserve(other.token, { draw_id: draw.id, numbers: [40] })).body;

    const active = await t.api('GET', '/api/me/reservations?active=1', { token: me.token });
    expect(active.status).toBe(200);
    expect(active.headers.get('cache-control')).toBe('no-store');
    expect(active.body.items.map((r: any) => r.reservationId)).toEqual([live.reservationId]);
    expect(active.body.items[0]).toMatchObject({ draw_id: draw.id, numbers: [30, 31], status: 'active', expires_at: expect.any(String) });

    const all = await t.api('GET', '/api/me/reservations', { token: me.token });
    expect(all.body.items.map((r: any) => r.reservationId)).toEqual([stale.reservationId, used.reservationId, live.reservationId]);
    expect(all.body.items.map((r: any) => r.reservationId)).not.toContain(theirs.reservationId);

    const mine = await t.api('GET', '/api/me/reservations?active=1', { token: other.token });
    expect(mine.body.items.map((r: any) => r.reservationId)).toEqual([theirs.reservationId]);

    expect((await t.api('GET', '/api/me/reservations?active=1')).status).toBe(401);
    expect((await t.api('GET', '/api/me/reservations?active=sim', { token: me.token })).status).toBe(400);
  });
});

describe('per-user limit and holds past their time', () => {
  test('a hold past its time no longer counts toward max_per_user, even before the sweep', async () => {
    const { draw } = await makeProductWithDraw(t, {}, { max_per_user: 1 });
    const u = await createUser(t);
    const first = await reserve(u.token, { draw_id: draw.id, numbers: [3] });
    expect(first.status).toBe(201);
    const blocked = await reserve(u.token, { draw_id: draw.id, numbers: [4] });
    expect(blocked.status).toBe(409);
    expect(blocked.body.error).toBe('limit_exceeded');
    await t.services
      .db('reservations')
      .where({ id: first.body.id })
      .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
    const second = await reserve(u.token, { draw_id: draw.id, numbers: [4] });
    expect(second.status).toBe(201);
    // The lapsed hold still blocks its own cell until the sweep releases it.
    expect((await cells(draw.id, [3]))[0].status).toBe('reserved');
  });
});

import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { grant, invariantViolations, makeDraw, makeProductWithDraw, range, sellDirectly } from './fixtures';

/**
 * Sell-out (RULES D2): the sale of the last number closes the draw and opens
 * exactly one successor with the predecessor's settings, in the same
 * transaction, with a 'draw.opened' event, also when the last numbers are sold
 * concurrently.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: 'true' } });
});
afterAll(() => t.close());

const reserve = (token: string, drawId: number, numbers: number[]) =>
  t.api('POST', '/api/reservations', { token, body: { draw_id: drawId, numbers } });
const consume = (token: string, reservationId: number, numbers: number[]) =>
  t.api('POST', '/api/vouchers/consume', { token, body: { reservationId, numbers } });

async function openedEvents(drawId: number) {
  return t.services.db('domain_events').where({ name: 'draw.opened' }).whereRaw(`(payload->>'drawId')::bigint = ?`, [drawId]);
}

test('selling the last number closes the draw and opens one successor with its settings', async () => {
  const settings = { title: 'Rodada Ouro', total_numbers: 6, prize_cents: 98_765, ticket_price_cents_override: 275, max_per_user: 3 };
  const { product, draw } = await makeProductWithDraw(t, {}, settings);
  const filler = await createUser(t);
  await sellDirectly(t, draw.id, filler.user.id, range(0, 5));
  const u = await createUser(t);
  await grant(t, u.user.id, product.id, 2);
  const res = await reserve(u.token, draw.id, [5]);
  expect(res.status).toBe(201);

  const r = await consume(u.token, res.body.reservationId, [5]);
  expect(r.status).toBe(200);
  const successor = await t.services.db('draws').where({ predecessor_id: draw.id }).first();
  expect(successor).toBeDefined();
  // remaining counts in the successor: the unused voucher carries over.
  expect(r.body).toEqual({
    ok: true,
    message: 'Números confirmados com sucesso! Boa sorte',
    draw_id: draw.id,
    numbers: [5],
    remaining: 1,
    sold_out: true,
    next_draw_id: successor.id,
  });

  const closed = await t.services.db('draws').where({ id: draw.id }).first();
  expect(closed.status).toBe('closed');
  expect(closed.closed_at).toBeInstanceOf(Date);
  expect(Date.now() - closed.closed_at.getTime()).toBeLessThan(60_000);

  expect(successor).toMatchObject({ ...settings, infoproduct_id: product.id, predecessor_id: draw.id, status: 'open', closed_at: null });
  const cells = await t.services.db('draw_numbers').where({ draw_id: successor.id }).orderBy('n');
  expect(cells.map((c) => [c.n, c.status])).toEqual(range(0, 6).map((n) => [n, 'available']));
  expect(await openedEvents(successor.id)).toHaveLength(1);
  expect(
    await t.services.db('domain_events').where({ name: 'draw.closed' }).whereRaw(`(payload->>'drawId')::bigint = ?`, [draw.id]),
  ).toHaveLength(1);
  expect(await t.services.db('draws').where({ infoproduct_id: product.id, status: 'open' })).toHaveLength(1);

  // The remaining voucher carries over to the successor.
  const rem = await t.api('GET', `/api/vouchers/remaining?draw_id=${successor.id}`, { token: u.token });
  expect(rem.body).toEqual({ remaining: 1, max: 3 });
  // The closed draw no longer takes holds.
  const late = await reserve(u.token, draw.id, [0]);
  expect(late.status).toBe(409);
  expect(late.body.error).toBe('draw_closed');
  // The board of the closed draw says so.
  const board = await t.api('GET', `/api/draws/${draw.id}/numbers`);
  expect(board.body.status).toBe('closed');
  expect(board.body.numbers.every((n: any) => n.status === 'sold')).toBe(true);
});

test('a draw whose last free numbers are only reserved stays open', async () => {
  const { product, draw } = await makeProductWithDraw(t, {}, { total_numbers: 4 });
  const a = await createUser(t);
  const b = await createUser(t);
  await sellDirectly(t, draw.id, a.user.id, [0, 1]);
  await grant(t, a.user.id, product.id, 1);
  const held = await reserve(b.token, draw.id, [3]);
  expect(held.status).toBe(201);
  const mine = await reserve(a.token, draw.id, [2]);
  const r = await consume(a.token, mine.body.reservationId, [2]);
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ sold_out: false, next_draw_id: null });
  expect((await t.services.db('draws').where({ id: draw.id }).first()).status).toBe('open');
  expect(await t.services.db('draws').where({ predecessor_id: draw.id })).toHaveLength(0);
  // When the hold expires, the number is simply available again.
  await t.services
    .db('reservations')
    .where({ id: held.body.reservationId })
    .update({ expires_at: t.services.db.raw(`now() - interval '1 second'`) });
  expect(await t.services.reservations.expire(held.body.reservationId)).toBe(true);
  expect((await t.services.db('draws').where({ id: draw.id }).first()).status).toBe('open');
  expect((await t.services.db('draw_numbers').where({ draw_id: draw.id, n: 3 }).first()).status).toBe('available');
});

test('a generic draw (no product) closes on sell-out without a successor', async () => {
  const draw = await makeDraw(t, { infoproduct_id: null, total_numbers: 2 });
  const u = await createUser(t);
  await sellDirectly(t, draw.id, u.user.id, [0]);
  const result = await t.services.db.transaction(async (trx) => {
    await trx('draw_numbers').where({ draw_id: draw.id, n: 1 }).update({ status: 'sold', owner_user_id: u.user.id });
    await trx('number_sales').insert({ draw_id: draw.id, n: 1, user_id: u.user.id, source: 'admin' });
    return t.services.draws.closeIfSoldOut(trx, draw.id);
  });
  expect(result).toEqual({ closed: true, successorId: null });
  expect((await t.services.db('draws').where({ id: draw.id }).first()).status).toBe('closed');
  expect(await t.services.db('draws').where({ predecessor_id: draw.id })).toHaveLength(0);
});

describe('the last two numbers sold concurrently by two users', () => {
  test.each(range(0, 12))('round %i: both sales succeed, the draw closes, exactly one successor', async (round) => {
    const { product, draw } = await makeProductWithDraw(
      t,
      {},
      { total_numbers: 5, max_per_user: round % 2 ? 2 : 0, prize_cents: 1_000 + round },
    );
    const filler = await createUser(t);
    await sellDirectly(t, draw.id, filler.user.id, [0, 1, 2]);
    const a = await createUser(t);
    const b = await createUser(t);
    await grant(t, a.user.id, product.id, 1);
    await grant(t, b.user.id, product.id, 1);
    const ra = await reserve(a.token, draw.id, [3]);
    const rb = await reserve(b.token, draw.id, [4]);
    expect([ra.status, rb.status]).toEqual([201, 201]);

    // Even rounds add what the client does on a sold-out board: ask for an open draw, concurrently.
    const ensure =
      round % 2 === 0 ? range(0, 5).map(() => t.api('POST', `/api/infoproducts/${product.id}/ensure-open-draw`, { token: a.token })) : [];
    const [ca, cb, ...ensured] = await Promise.all([
      consume(a.token, ra.body.reservationId, [3]),
      consume(b.token, rb.body.reservationId, [4]),
      ...ensure,
    ]);
    expect([ca.status, cb.status]).toEqual([200, 200]);

    const closed = await t.services.db('draws').where({ id: draw.id }).first();
    expect(closed.status).toBe('closed');
    expect(closed.closed_at).not.toBeNull();
    const successors = await t.services.db('draws').where({ predecessor_id: draw.id });
    expect(successors).toHaveLength(1);
    expect(successors[0]).toMatchObject({ status: 'open', total_numbers: 5, prize_cents: 1_000 + round, max_per_user: round % 2 ? 2 : 0 });
    const open = await t.services.db('draws').where({ infoproduct_id: product.id, status: 'open' });
    expect(open.map((d) => d.id)).toEqual([successors[0].id]);
    expect(await openedEvents(successors[0].id)).toHaveLength(1);
    // Exactly one of the two sales saw the board sold out, and it names the successor.
    const soldOut = [ca.body, cb.body].filter((x) => x.sold_out);
    expect(soldOut).toHaveLength(1);
    expect(soldOut[0].next_draw_id).toBe(successors[0].id);
    // ensure-open-draw answered the old draw (still open when read) or the successor, never a third draw.
    for (const e of ensured) {
      expect(e.status).toBe(200);
      expect([draw.id, successors[0].id]).toContain(e.body.draw_id);
    }
    expect(await t.services.db('number_sales').where({ draw_id: draw.id }).orderBy('n').select('n', 'user_id')).toEqual([
      { n: 0, user_id: filler.user.id },
      { n: 1, user_id: filler.user.id },
      { n: 2, user_id: filler.user.id },
      { n: 3, user_id: a.user.id },
      { n: 4, user_id: b.user.id },
    ]);
    expect(await invariantViolations(t, [draw.id, successors[0].id])).toEqual([]);
  });
});

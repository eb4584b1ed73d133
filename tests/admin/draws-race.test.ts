import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { grant, invariantViolations, makeDraw, makeProductWithDraw, sellDirectly } from '../draws/fixtures';
import { writeAppConfig } from '../../src/platform/app-config';

/**
 * Races of the admin status chip and 'NOVO SORTEIO' with a sell-out opening the successor, over
 * real HTTP against the real database: never two open draws of one product, and the buyer's sale
 * never fails because of the admin.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
});
afterAll(() => t.close());

const openOf = (productId: number) => t.services.db('draws').where({ infoproduct_id: productId, status: 'open' }).pluck('id');

/** A product whose open draw has one number left, held by a buyer with a voucher to pay it. */
async function lastNumberReady() {
  const { product, draw } = await makeProductWithDraw(t, {}, { total_numbers: 2, max_per_user: 0 });
  const filler = await createUser(t);
  await sellDirectly(t, draw.id, filler.user.id, [0]);
  const buyer = await createUser(t);
  await grant(t, buyer.user.id, product.id, 1);
  const res = await t.api('POST', '/api/reservations', { token: buyer.token, body: { draw_id: draw.id, numbers: [1] } });
  expect(res.status).toBe(201);
  const consume = () =>
    t.api('POST', '/api/vouchers/consume', { token: buyer.token, body: { reservationId: res.body.reservationId, numbers: [1] } });
  return { product, draw, consume, buyer };
}

test('toggling an old draw open while the sell-out opens the successor never yields two open draws', async () => {
  const admin = await createUser(t, { admin: true });
  for (let round = 0; round < 8; round++) {
    const { product, draw, consume } = await lastNumberReady();
    const old = await makeDraw(t, { infoproduct_id: product.id, status: 'closed', total_numbers: 3 });
    const [sale, toggle] = await Promise.all([
      consume(),
      t.api('PATCH', `/api/admin/draws/${old.id}`, { token: admin.token, body: { status: 'open' } }),
    ]);
    // The buyer's sale never fails because of the admin.
    expect(sale.status).toBe(200);
    expect(sale.body.sold_out).toBe(true);
    expect((await t.services.db('draws').where({ id: draw.id }).first()).status).toBe('closed');
    // While the product has an open draw (the one selling out, then its successor) the toggle is
    // refused, whichever commits first; the successor is the one open draw.
    expect([toggle.status, toggle.body.error]).toEqual([409, 'draw_already_open']);
    const successor = await t.services.db('draws').where({ predecessor_id: draw.id }).first();
    const open = await openOf(product.id);
    expect(open).toEqual([successor.id]);
    expect(sale.body.next_draw_id).toBe(successor.id);
    expect((await t.services.db('draws').where({ id: old.id }).first()).status).toBe('closed');
    expect(await invariantViolations(t, [draw.id, old.id, ...open])).toEqual([]);
  }
});

test('two admins opening two closed draws of one product at once: one wins, the other gets 409', async () => {
  const admin = await createUser(t, { admin: true });
  for (let round = 0; round < 5; round++) {
    const { product, draw } = await makeProductWithDraw(t, {}, { total_numbers: 2, status: 'closed' });
    const other = await makeDraw(t, { infoproduct_id: product.id, status: 'closed', total_numbers: 2 });
    const rs = await Promise.all(
      [draw, other].map((d) => t.api('PATCH', `/api/admin/draws/${d.id}`, { token: admin.token, body: { status: 'open' } })),
    );
    expect(rs.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await openOf(product.id)).toHaveLength(1);
  }
});

test('an admin reopening a paused draw while a customer asks ensure-open-draw: the admin wins, the customer opens nothing', async () => {
  const admin = await createUser(t, { admin: true });
  const customer = await createUser(t);
  for (let round = 0; round < 6; round++) {
    // Closed by an admin (a pause, RULES D3): only an admin opens the product's next draw.
    const { product, draw: old } = await makeProductWithDraw(t, {}, { total_numbers: 3, status: 'closed' });
    const [toggle, ensure] = await Promise.all([
      t.api('PATCH', `/api/admin/draws/${old.id}`, { token: admin.token, body: { status: 'open' } }),
      t.api('POST', `/api/infoproducts/${product.id}/ensure-open-draw`, { token: customer.token }),
    ]);
    expect(toggle.status).toBe(200);
    expect(ensure.status).toBe(200);
    expect(await openOf(product.id)).toEqual([old.id]);
    // Before the reopen committed: the paused state; after: the reopened draw.
    expect([null, old.id]).toContain(ensure.body.draw_id);
  }
});

test('NOVO SORTEIO racing a sell-out of the main series: one successor, never two open draws, a number sold at most once', async () => {
  const admin = await createUser(t, { admin: true });
  const outcomes = new Set<string>();
  for (let round = 0; round < 6; round++) {
    const { product, draw, consume, buyer } = await lastNumberReady();
    await writeAppConfig(t.services.db, { main_infoproduct_id: product.id });
    t.services.readCache.invalidateAll();
    const [sale, renew] = await Promise.all([
      consume(),
      t.api('POST', '/api/admin/dashboard/new', { token: admin.token, body: { draw_id: draw.id } }),
    ]);
    if (renew.status === 201) {
      // The admin closed the draw first: the held number is not sold in a closed draw, and the
      // buyer keeps the voucher (it carries over to the successor).
      expect([sale.status, sale.body.error]).toEqual([409, 'draw_closed']);
      expect(await t.services.db('number_sales').where({ draw_id: draw.id }).orderBy('n').pluck('n')).toEqual([0]);
      expect(
        await t.services.db('voucher_balances').where({ user_id: buyer.user.id, infoproduct_id: product.id }).pluck('balance'),
      ).toEqual([1]);
      outcomes.add('new series first');
    } else {
      // The sell-out came first and opened the successor: the admin's confirmation is stale.
      expect(sale.status).toBe(200);
      expect([renew.status, renew.body.error]).toEqual([409, 'draw_changed']);
      expect(await t.services.db('number_sales').where({ draw_id: draw.id }).orderBy('n').pluck('n')).toEqual([0, 1]);
      outcomes.add('sell-out first');
    }
    const open = await openOf(product.id);
    expect(open).toHaveLength(1);
    // Exactly one successor of the closed draw, and it is the open one.
    expect(await t.services.db('draws').where({ predecessor_id: draw.id }).pluck('id')).toEqual(open);
    expect(await invariantViolations(t, [draw.id, ...open])).toEqual([]);
  }
  expect(outcomes.size).toBeGreaterThan(0);
});

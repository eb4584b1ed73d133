import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { startTestWorker } from '../helpers/worker';
import type { RunningWorker } from '../../src/platform/queue';
import { eventually } from '../helpers/eventually';
import { runCliCaptured } from '../helpers/cli';
import { writeAppConfig } from '../../src/platform/app-config';
import { makeDraw, makeProduct } from '../payments/fixtures';
import { autopayUser, mainSeries, runsOf } from '../autopay/fixtures';

/**
 * RULES D3 "An admin's close is a pause" and D4: ensure-open-draw opens a draw only for an active
 * product with no draw yet or whose last draw closed by selling out; after an admin's close it
 * answers the product's state (200, no draw) and opens nothing. RULES A3: autopay holds and charges
 * only in draws opened by sell-out succession or by an admin (draws.opened_by).
 */
let t: TestContext;
let worker: RunningWorker | null = null;
beforeAll(async () => {
  t = await createTestContext();
  // The relay turns draw.opened into autopay.charge: a charge can only be missing because none was due.
  worker = await startTestWorker(t, { schedules: [{ id: 'outbox-relay', name: 'outbox.relay', everyMs: 300 }] });
});
beforeEach(async () => {
  await t.services.db('autopay_captive_numbers').del();
  await t.services.db('autopay_profiles').update({ active: false });
});
afterAll(async () => {
  await worker?.close();
  await t?.close();
});

const openDrawsOf = (productId: number) => t.services.db('draws').where({ infoproduct_id: productId, status: 'open' }).pluck('id');
const autopayPayments = (productId: number) =>
  t.services
    .db('payments')
    .where({ kind: 'autopay' })
    .whereIn('draw_id', t.services.db('draws').where({ infoproduct_id: productId }).select('id'));
const relayed = async () => !(await t.services.db('domain_events').where({ name: 'draw.opened' }).whereNull('dispatched_at').first('id'));

test('a customer cannot undo an admin close; autopay is not charged; the admin reopens it', async () => {
  const admin = await createUser(t, { admin: true });
  const customer = await createUser(t);
  const { product, draw } = await mainSeries(t, { max_per_user: 0 });
  const saver = await autopayUser(t, [7]);

  const closed = await t.api('PATCH', `/api/admin/draws/${draw.id}`, { token: admin.token, body: { status: 'closed' } });
  expect(closed.status).toBe(200);
  expect(closed.body.status).toBe('closed');
  // The main series' draw closed by hand: the store has no current draw until one is opened.
  expect(closed.body.notice).toMatch(/sem sorteio atual até que um seja aberto/);
  expect(await t.services.db('draws').where({ id: draw.id }).first('closed_by')).toEqual({ closed_by: 'admin' });

  // Customers asking for an open draw, at once: 200, no draw, nothing opened.
  const asks = await Promise.all(
    [0, 1, 2, 3].map(() => t.api('POST', `/api/infoproducts/${product.sku}/ensure-open-draw`, { token: customer.token })),
  );
  for (const a of asks) {
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({
      draw_id: null,
      id: null,
      status: 'paused',
      open: false,
      infoproduct_id: product.id,
      last_draw_id: draw.id,
    });
    expect(a.body.message).toMatch(/pausado/);
  }
  expect(await openDrawsOf(product.id)).toEqual([]);
  const config = await t.api('GET', '/api/config');
  expect(config.body.current_draw_id).toBeNull();
  // Buying the e-book still works (its vouchers wait for the next draw) and opens nothing either.
  const pix = await t.api('POST', '/api/payments/infoproduct', {
    token: customer.token,
    body: { infoproduct_id: product.id, quantity: 1, amount_cents_total: 500 },
  });
  expect(pix.status).toBe(201);
  expect(await openDrawsOf(product.id)).toEqual([]);
  await eventually(relayed, 'the outbox relayed');
  expect(await autopayPayments(product.id)).toEqual([]);
  expect(await runsOf(t, draw.id)).toEqual([]);

  // The admin's reopen works (nothing took the draw's place) and autopay runs for it.
  const reopened = await t.api('PATCH', `/api/admin/draws/${draw.id}`, { token: admin.token, body: { status: 'open' } });
  expect(reopened.status).toBe(200);
  expect(reopened.body.status).toBe('open');
  expect(reopened.body.notice).toBeUndefined();
  expect(await t.services.db('draws').where({ id: draw.id }).first('opened_by', 'closed_by')).toEqual({
    opened_by: 'admin',
    closed_by: null,
  });
  const ensured = await t.api('POST', `/api/infoproducts/${product.id}/ensure-open-draw`, { token: customer.token });
  expect(ensured.status).toBe(200);
  expect(ensured.body.draw_id).toBe(draw.id);
  const charged = await eventually(
    async () => (await autopayPayments(product.id).where({ status: 'approved' }))[0],
    'the reopened draw charged',
  );
  expect(charged).toMatchObject({ user_id: saver.user.id, draw_id: draw.id });
  expect(await autopayPayments(product.id)).toHaveLength(1);
});

test("a product's first draw opened by a customer is not charged by autopay; a sell-out's successor is", async () => {
  const customer = await createUser(t);
  const product = await makeProduct(t);
  await writeAppConfig(t.services.db, { main_infoproduct_id: product.id });
  t.services.readCache.invalidateAll();
  const saver = await autopayUser(t, [3]);

  const first = await t.api('POST', `/api/infoproducts/${product.id}/ensure-open-draw`, { token: customer.token });
  expect(first.status).toBe(200);
  expect(first.body.draw_id).toEqual(expect.any(Number));
  expect(await t.services.db('draws').where({ id: first.body.draw_id }).first('opened_by')).toEqual({ opened_by: 'customer' });
  expect(await runsOf(t, first.body.draw_id)).toEqual([]);
  await eventually(relayed, 'the outbox relayed');
  expect(await autopayPayments(product.id)).toEqual([]);

  // Sold out (here: closed by the sale path's rule with its successor): the successor is autopay's.
  const next = await t.services.db.transaction(async (trx) => {
    await trx('draw_numbers').where({ draw_id: first.body.draw_id }).update({ status: 'sold', owner_user_id: customer.user.id });
    return t.services.draws.closeIfSoldOut(trx, first.body.draw_id);
  });
  expect(next.closed).toBe(true);
  expect(await t.services.db('draws').where({ id: first.body.draw_id }).first('closed_by')).toEqual({ closed_by: 'sellout' });
  expect(await t.services.db('draws').where({ id: next.successorId }).first('opened_by', 'predecessor_id')).toEqual({
    opened_by: 'sellout',
    predecessor_id: first.body.draw_id,
  });
  const paid = await eventually(async () => (await autopayPayments(product.id).where({ status: 'approved' }))[0], 'the successor charged');
  expect(paid).toMatchObject({ user_id: saver.user.id, draw_id: next.successorId });
});

test('after a sell-out whose successor is gone, ensure-open-draw opens one (once, under concurrent calls)', async () => {
  const customer = await createUser(t);
  const product = await makeProduct(t);
  const d = await makeDraw(t, { infoproduct_id: product.id, total_numbers: 2 });
  await t.services.db('draw_numbers').where({ draw_id: d.id }).update({ status: 'sold', owner_user_id: customer.user.id });
  await t.services.db('draws').where({ id: d.id }).update({ status: 'closed', closed_at: t.services.db.fn.now(), closed_by: 'sellout' });
  const asks = await Promise.all(
    [0, 1, 2, 3, 4].map(() => t.api('POST', `/api/infoproducts/${product.id}/ensure-open-draw`, { token: customer.token })),
  );
  const ids = new Set(asks.map((a) => a.body.draw_id));
  expect(asks.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
  expect(ids.size).toBe(1);
  expect(await openDrawsOf(product.id)).toEqual([...ids]);
  expect(
    await t.services
      .db('draws')
      .where({ id: [...ids][0] })
      .first('predecessor_id', 'total_numbers'),
  ).toEqual({ predecessor_id: d.id, total_numbers: 2 });
});

test('ensure-open-draw: anonymous 401, unknown product 404, inactive product 409', async () => {
  const customer = await createUser(t);
  const product = await makeProduct(t, { active: false });
  expect((await t.api('POST', `/api/infoproducts/${product.id}/ensure-open-draw`)).status).toBe(401);
  const missing = await t.api('POST', '/api/infoproducts/999999999/ensure-open-draw', { token: customer.token });
  expect([missing.status, missing.body.error]).toEqual([404, 'infoproduct_not_found']);
  const inactive = await t.api('POST', `/api/infoproducts/${product.id}/ensure-open-draw`, { token: customer.token });
  expect([inactive.status, inactive.body.error]).toEqual([409, 'infoproduct_inactive']);
});

test("the CLI closing the main series draw says the store has no current draw; another product's close says nothing", async () => {
  const { draw } = await mainSeries(t);
  const r = await runCliCaptured(['draws', 'close', String(draw.id)], () => t.services);
  expect(r.code).toBe(0);
  expect(r.out).toMatch(new RegExp(`sorteio #${draw.id} fechado`));
  expect(r.out).toMatch(/atenção: .*sem sorteio (atual|aberto) até que um seja aberto/);
  const json = await runCliCaptured(['draws', 'reopen', String(draw.id), '--json'], () => t.services);
  expect(JSON.parse(json.out)).toMatchObject({ id: draw.id, status: 'open' });
  const other = await makeDraw(t, { infoproduct_id: (await makeProduct(t)).id });
  const quiet = await runCliCaptured(['draws', 'close', String(other.id)], () => t.services);
  expect(quiet.code).toBe(0);
  expect(quiet.out).not.toMatch(/atenção/);
});

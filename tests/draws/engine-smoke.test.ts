import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { seedDemo } from '../../seeds/demo';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
  await seedDemo(t.services.db);
});
afterAll(() => t.close());

test('reserve, consume with vouchers, board shows sold with initials', async () => {
  const u = await createUser(t, { name: 'Ana Beatriz Costa' });
  const product = await t.services.db('infoproducts').where({ sku: 'EBOOK-FINANCAS' }).first();
  const draw = await t.services.db('draws').where({ infoproduct_id: product.id, status: 'open' }).first();
  await t.services.payments.grantVouchers({ user: u.email, product: product.sku, quantity: '3' }, { via: 'cli' });

  let r = await t.api('GET', `/api/vouchers/remaining?draw_id=${draw.id}`, { token: u.token });
  expect(r.body).toEqual({ remaining: 3, max: null });

  r = await t.api('POST', '/api/reservations', { token: u.token, body: { draw_id: draw.id, numbers: [7, 3] } });
  expect(r.status).toBe(201);
  const reservationId = r.body.reservationId;

  r = await t.api('POST', '/api/vouchers/consume', { token: u.token, body: { draw_id: draw.id, reservationId, numbers: [3, 7] } });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ ok: true, numbers: [3, 7], remaining: 1, sold_out: false });

  t.services.draws.invalidateBoard(draw.id);
  r = await t.api('GET', `/api/draws/${draw.id}/numbers`);
  expect(r.status).toBe(200);
  const cell = r.body.numbers.find((x: any) => x.n === 3);
  expect(cell).toEqual({ n: 3, status: 'sold', initials: 'ABC' });
  expect(JSON.stringify(r.body)).not.toContain('Costa');
});

test('selling the last number closes the draw and opens one successor', async () => {
  const u = await createUser(t);
  const product = await t.services.db('infoproducts').where({ sku: 'EBOOK-ESTATISTICA' }).first();
  const draw = await t.services.db('draws').where({ infoproduct_id: product.id, status: 'open' }).first();
  // Sell 0..97 directly, leaving 98 and 99.
  await t.services.db('draw_numbers').where({ draw_id: draw.id }).where('n', '<', 98).update({ status: 'sold', owner_user_id: u.user.id });
  await t.services.payments.grantVouchers({ user: String(u.user.id), product: String(product.id), quantity: '2' }, { via: 'cli' });
  const res = await t.api('POST', '/api/reservations', { token: u.token, body: { draw_id: draw.id, numbers: [98, 99] } });
  expect(res.status).toBe(201);
  const r = await t.api('POST', '/api/vouchers/consume', { token: u.token, body: { reservationId: res.body.id, numbers: [98, 99] } });
  expect(r.status).toBe(200);
  expect(r.body.sold_out).toBe(true);
  const closed = await t.services.db('draws').where({ id: draw.id }).first();
  expect(closed.status).toBe('closed');
  const open = await t.services.db('draws').where({ infoproduct_id: product.id, status: 'open' });
  expect(open).toHaveLength(1);
  expect(open[0].predecessor_id).toBe(draw.id);
  expect(r.body.next_draw_id).toBe(open[0].id);
  const ev = await t.services.db('domain_events').where({ name: 'draw.opened' }).whereRaw(`(payload->>'drawId')::bigint = ?`, [open[0].id]);
  expect(ev).toHaveLength(1);
});

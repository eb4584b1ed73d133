import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { grant } from '../draws/fixtures';
import { makeProductWithDraw } from '../payments/fixtures';

/**
 * The reads a signed-in browser repeats come from the user read cache (platform/user-read-cache.ts):
 * an answer only ever goes to its own user, is never written by the public fast lane, and the
 * user's own write shows on their very next read.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

test('a cached answer goes only to its own user, never through the public fast lane', async () => {
  const a = await createUser(t);
  const b = await createUser(t);
  for (let i = 0; i < 3; i++) {
    const r = await t.api('GET', '/api/me', { token: a.token });
    expect([r.status, r.body.user.email, r.headers.get('cache-control')]).toEqual([200, a.email, 'no-store']);
  }
  expect((await t.api('GET', '/api/me', { token: b.token })).body.user.email).toBe(b.email);
  // Without the token, the same URL is a 401, however often it was just answered.
  expect((await t.api('GET', '/api/me')).status).toBe(401);
});

test('the user’s own write shows on their next read (reservations, vouchers left)', async () => {
  const u = await createUser(t);
  const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
  await grant(t, u.user.id, product.id, 2);
  const mine = async () => (await t.api('GET', '/api/me/reservations', { token: u.token })).body.items.length;
  const left = async () => (await t.api('GET', `/api/vouchers/remaining?draw_id=${draw.id}`, { token: u.token })).body.remaining;
  expect(await mine()).toBe(0);
  expect(await left()).toBe(2);
  const hold = await t.api('POST', '/api/reservations', { token: u.token, body: { draw_id: draw.id, numbers: [5] } });
  expect(hold.status).toBe(201);
  expect(await mine()).toBe(1);
  const sale = await t.api('POST', '/api/vouchers/consume', { token: u.token, body: { reservationId: hold.body.id, numbers: [5] } });
  expect(sale.status).toBe(200);
  expect(await left()).toBe(1);
});

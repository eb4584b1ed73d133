import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { startFakeMercadoPago, type FakeMercadoPago } from '../helpers/fake-mercadopago';
import { makeProductWithDraw, mercadoPagoEnv, paymentRow, reserve } from './fixtures';

/**
 * Provider calls (RULES P8): a user's pending charge for the same e-book and quantity is shown
 * again instead of a new one (parallel requests included), and creating charges is limited per
 * user (10 per 10 minutes). Rate limits are on in this file.
 */
let fake: FakeMercadoPago;
let t: TestContext;
beforeAll(async () => {
  fake = await startFakeMercadoPago({ realQr: false });
  t = await createTestContext({ env: mercadoPagoEnv(fake) });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const creates = () => fake.count('POST', '/v1/payments');
const buy = (token: string, productId: number, quantity: number, unit = 500) =>
  t.api('POST', '/api/payments/infoproduct', { token, body: { infoproduct_id: productId, quantity, amount_cents_total: unit * quantity } });

test('the pending charge for the same e-book and quantity is reused, also by parallel requests', async () => {
  const u = await createUser(t);
  const { product } = await makeProductWithDraw(t, { price_cents: 500 });
  const before = creates();
  const first = await buy(u.token, product.id, 2);
  expect(first.status).toBe(201);
  const again = await buy(u.token, product.id, 2);
  expect(again.status).toBe(201);
  expect(again.body).toEqual(first.body);
  expect(creates() - before).toBe(1);

  const parallel = await Promise.all(Array.from({ length: 8 }, () => buy(u.token, product.id, 3)));
  expect(parallel.map((r) => r.status)).toEqual(Array(8).fill(201));
  expect(new Set(parallel.map((r) => r.body.paymentId)).size).toBe(1);
  expect(parallel.every((r) => r.body.copy_paste_code === parallel[0].body.copy_paste_code)).toBe(true);
  expect(creates() - before).toBe(2);

  // A charge about to expire (or expired, or paid) is not shown again.
  await t.services
    .db('payments')
    .where({ id: first.body.paymentId })
    .update({ expires_at: t.services.db.raw(`now() + interval '1 minute'`) });
  const fresh = await buy(u.token, product.id, 2);
  expect(fresh.status).toBe(201);
  expect(fresh.body.paymentId).not.toBe(first.body.paymentId);
  // Another user never gets someone else's charge.
  const other = await createUser(t);
  const theirs = await buy(other.token, product.id, 3);
  expect(theirs.body.paymentId).not.toBe(parallel[0].body.paymentId);
  expect((await paymentRow(t, theirs.body.paymentId)).user_id).toBe(other.user.id);
});

test('parallel requests for one charge spend one point of the limit', async () => {
  const u = await createUser(t);
  const { product } = await makeProductWithDraw(t, { price_cents: 500 });
  const burst = await Promise.all(Array.from({ length: 10 }, () => buy(u.token, product.id, 1)));
  expect(burst.map((r) => r.status)).toEqual(Array(10).fill(201));
  // Nine more new charges still fit in the 10.
  for (let q = 2; q <= 10; q++) expect((await buy(u.token, product.id, q)).status).toBe(201);
  expect((await buy(u.token, product.id, 11)).status).toBe(429);
});

test('at most 10 new charges per user in 10 minutes (e-books and reservations); reuse still answers', async () => {
  const u = await createUser(t);
  const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
  for (let q = 1; q <= 10; q++) expect((await buy(u.token, product.id, q)).status).toBe(201);
  const limited = await buy(u.token, product.id, 11);
  expect(limited.status).toBe(429);
  expect(limited.body).toMatchObject({ error: 'rate_limited', message: 'Muitas tentativas. Aguarde um pouco e tente novamente.' });
  // A reservation PIX is a new charge too.
  const res = await reserve(t, u.token, draw.id, [1]);
  const pix = await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: res.id } });
  expect(pix.status).toBe(429);
  // The pending charge already made is still shown.
  expect((await buy(u.token, product.id, 4)).status).toBe(201);
  // Nothing was created for the refused ones.
  expect(await t.services.db('payments').where({ user_id: u.user.id })).toHaveLength(10);
  // Others are not limited by this user.
  const other = await createUser(t);
  expect((await buy(other.token, product.id, 11)).status).toBe(201);
});

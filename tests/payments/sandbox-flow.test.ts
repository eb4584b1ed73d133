import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { seedDemo } from '../../seeds/demo';
import { hasValidCrc, parseBrCode } from '../../src/payments/brcode';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
  await seedDemo(t.services.db);
});
afterAll(() => t.close());

test('buy 3 e-books by sandbox PIX: QR, approval, vouchers granted once', async () => {
  const u = await createUser(t);
  const product = await t.services.db('infoproducts').where({ sku: 'EBOOK-FINANCAS' }).first();
  const created = await t.api('POST', '/api/payments/infoproduct', {
    token: u.token,
    body: { infoproduct_id: product.id, quantity: 3, amount_cents_total: 600 },
  });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ status: 'pending', amount: 6, amount_cents: 600 });
  const code: string = created.body.copy_paste_code;
  expect(hasValidCrc(code)).toBe(true);
  expect(parseBrCode(code)['54']).toBe('6.00');
  expect(Buffer.from(created.body.qr_code_base64, 'base64').subarray(1, 4).toString()).toBe('PNG');

  let st = await t.api('GET', `/api/payments/${created.body.paymentId}/status`, { token: u.token });
  expect(st.body.status).toBe('pending');
  const early = await t.api('POST', '/api/purchases/confirm', {
    token: u.token,
    body: { payment_id: created.body.paymentId, infoproduct_id: product.id },
  });
  expect(early.status).toBe(409);

  await t.services.payments.approveSandbox(created.body.paymentId, { via: 'cli' });
  st = await t.api('GET', `/api/payments/${created.body.paymentId}/status`, { token: u.token });
  expect(st.body.status).toBe('approved');

  const c1 = await t.api('POST', '/api/purchases/confirm', {
    token: u.token,
    body: { payment_id: created.body.paymentId, infoproduct_id: product.id },
  });
  const c2 = await t.api('POST', '/api/purchases/confirm', {
    token: u.token,
    body: { payment_id: created.body.paymentId, infoproduct_id: product.id },
  });
  expect(c1.status).toBe(200);
  expect(c2.status).toBe(200);
  expect(c1.body.remaining).toBe(3);
  const bal = await t.services.db('voucher_balances').where({ user_id: u.user.id, infoproduct_id: product.id }).first();
  expect(bal.balance).toBe(3);

  const other = await createUser(t);
  const foreign = await t.api('GET', `/api/payments/${created.body.paymentId}/status`, { token: other.token });
  expect(foreign.status).toBe(404);
});

test('tampered amount answers 409 price_changed with the server amount', async () => {
  const u = await createUser(t);
  const product = await t.services.db('infoproducts').where({ sku: 'EBOOK-FINANCAS' }).first();
  const r = await t.api('POST', '/api/payments/infoproduct', {
    token: u.token,
    body: { infoproduct_id: product.id, quantity: 2, amount_cents_total: 1 },
  });
  expect(r.status).toBe(409);
  expect(r.body).toMatchObject({ error: 'price_changed', amount_cents_total: 400 });
});

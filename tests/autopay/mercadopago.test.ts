import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { startFakeMercadoPago, type FakeMercadoPago } from '../helpers/fake-mercadopago';
import { mercadoPagoEnv } from '../payments/fixtures';
import { CARDS, VALID_CPF, cardBody, mainSeries, openNextDraw, runsOf, cellsOf } from './fixtures';

/**
 * Autopay with Mercado Pago, against the local fake of its API: the card is saved on the user's
 * customer (search by e-mail, create, POST /v1/customers/{id}/cards {token}); each run is one
 * POST /v1/payments with the customer and card ids and X-Idempotency-Key = the run.
 */
let t: TestContext;
let fake: FakeMercadoPago;
beforeAll(async () => {
  fake = await startFakeMercadoPago({ realQr: false });
  t = await createTestContext({ env: mercadoPagoEnv(fake, { MERCADOPAGO_PUBLIC_KEY: 'APP_USR-public-key-abc' }) });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

async function saveWithMp(token: string, numbers: number[], card: string) {
  return t.api('POST', '/api/me/autopay', { token, body: { active: true, numbers, holder_name: 'JOAO PEREIRA', doc_number: VALID_CPF, card_token: fake.cardToken(card) } });
}

test('card config gives the public key (never the access token); the sandbox tokenizer is 404', async () => {
  const c = await t.api('GET', '/api/autopay/card-config');
  expect(c.body).toEqual({ provider: 'mercadopago', public_key: 'APP_USR-public-key-abc' });
  expect(c.text).not.toContain(fake.token);
  const u = await createUser(t);
  const r = await t.api('POST', '/api/sandbox/card-tokens', { token: u.token, body: cardBody() });
  expect(r.status).toBe(404);
  expect(r.body.error).toBe('not_found');
});

test('saving a card: one customer per e-mail (found again, not created twice), the card saved with the token', async () => {
  const u = await createUser(t);
  const customersBefore = fake.count('POST', '/v1/customers');
  const r = await saveWithMp(u.token, [40], CARDS.master);
  expect(r.status).toBe(200);
  expect(r.body.card).toEqual({ has_card: true, brand: 'master', last4: '4444' });
  const profile = await t.services.db('autopay_profiles').where({ user_id: u.user.id }).first();
  const customer = fake.customers.get(profile.provider_customer_id)!;
  expect(customer.email).toBe(u.email);
  expect(fake.cards.get(profile.provider_card_id)).toMatchObject({ customer_id: customer.id, last_four_digits: '4444' });
  // A new card: the saved customer is reused (no search, no creation).
  const r2 = await saveWithMp(u.token, [40], CARDS.approve);
  expect(r2.body.card).toMatchObject({ brand: 'visa', last4: '1111' });
  expect(fake.requests.filter((q) => q.method === 'POST' && q.path === '/v1/customers')).toHaveLength(customersBefore === 0 ? 1 : customersBefore + 1);
  // A token Mercado Pago refuses (used already): 400 with the message of the dialog.
  const used = fake.cardToken(CARDS.approve);
  await t.api('POST', '/api/me/autopay', { token: u.token, body: { active: true, numbers: [40], holder_name: 'J', doc_number: VALID_CPF, card_token: used } });
  const again = await t.api('POST', '/api/me/autopay', { token: u.token, body: { active: true, numbers: [40], holder_name: 'J', doc_number: VALID_CPF, card_token: used } });
  expect(again.status).toBe(400);
  expect(again.body.error).toBe('card_token_invalid');
  // The customer search finds an existing customer of the same e-mail (created elsewhere).
  const v = await createUser(t);
  fake.customers.set('999-existing', { id: '999-existing', email: v.email });
  expect((await saveWithMp(v.token, [41], CARDS.approve)).status).toBe(200);
  expect((await t.services.db('autopay_profiles').where({ user_id: v.user.id }).first()).provider_customer_id).toBe('999-existing');
  await t.api('POST', '/api/me/autopay/cancel', { token: u.token });
  await t.api('POST', '/api/me/autopay/cancel', { token: v.token });
});

test('charges: one POST /v1/payments per run with customer, card and idempotency key; decline releases; 5xx retries with the same key', async () => {
  const { draw } = await mainSeries(t, { price_cents: 250, max_per_user: 0 });
  const ok = await createUser(t);
  const bad = await createUser(t);
  const flaky = await createUser(t);
  expect((await saveWithMp(ok.token, [1, 2], CARDS.approve)).status).toBe(200);
  expect((await saveWithMp(bad.token, [3], CARDS.decline)).status).toBe(200);
  expect((await saveWithMp(flaky.token, [4], CARDS.transient)).status).toBe(200);
  const next = await openNextDraw(t, draw.id);
  const before = fake.count('POST', '/v1/payments');

  const s1 = await t.services.autopay.runDraw(next);
  expect(s1.pending).toBe(1);
  await new Promise((r) => setTimeout(r, 1_100));
  expect((await t.services.autopay.runDraw(next)).pending).toBe(1);
  await new Promise((r) => setTimeout(r, 2_100));
  expect((await t.services.autopay.runDraw(next)).pending).toBe(0);

  const runs = await runsOf(t, next);
  const profileOf = async (userId: number) => (await t.services.db('autopay_profiles').where({ user_id: userId }).first()).id;
  const byProfile = new Map(runs.map((r: any) => [r.profile_id, r]));
  const okRun: any = byProfile.get(await profileOf(ok.user.id));
  const badRun: any = byProfile.get(await profileOf(bad.user.id));
  const flakyRun: any = byProfile.get(await profileOf(flaky.user.id));
  expect([okRun.status, badRun.status, flakyRun.status]).toEqual(['approved', 'failed', 'approved']);
  expect(flakyRun.attempts).toBe(3);

  const calls = fake.requests.filter((q) => q.method === 'POST' && q.path === '/v1/payments').slice(before);
  expect(calls).toHaveLength(5); // ok, bad, flaky ×3 (two 500s, then the charge)
  const keys = calls.map((c) => c.headers['x-idempotency-key']);
  expect(keys.filter((k) => k === `cotaverde-autopay-run-${flakyRun.id}`)).toHaveLength(3);
  expect(keys.filter((k) => k === `cotaverde-autopay-run-${okRun.id}`)).toHaveLength(1);
  const okCall = calls.find((c) => c.headers['x-idempotency-key'] === `cotaverde-autopay-run-${okRun.id}`)!;
  const okProfile = await t.services.db('autopay_profiles').where({ user_id: ok.user.id }).first();
  expect(okCall.body).toMatchObject({
    transaction_amount: 5,
    installments: 1,
    binary_mode: true,
    card_id: okProfile.provider_card_id,
    payer: { type: 'customer', id: okProfile.provider_customer_id, email: ok.email },
    external_reference: String(okRun.payment_id),
  });
  expect(JSON.stringify(okCall.body)).not.toContain(fake.token);
  // Our payments point at the provider's.
  const okPay = await t.services.db('payments').where({ id: okRun.payment_id }).first();
  expect(okPay).toMatchObject({ provider: 'mercadopago', status: 'approved', kind: 'autopay', amount_cents: 500 });
  expect(fake.payments.get(Number(okPay.provider_payment_id))?.status).toBe('approved');
  expect(okRun.provider_response).toMatchObject({ status: 'approved' });
  expect(badRun.provider_response).toMatchObject({ status: 'rejected', status_detail: 'cc_rejected_other_reason' });
  expect((await cellsOf(t, next, [1, 2, 3, 4])).map((c: any) => c.status)).toEqual(['sold', 'sold', 'available', 'sold']);

  // Again: nothing is charged twice.
  await t.services.autopay.runDraw(next);
  expect(fake.count('POST', '/v1/payments')).toBe(before + 5);
});

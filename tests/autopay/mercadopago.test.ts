import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { startFakeMercadoPago, type FakeMercadoPago } from '../helpers/fake-mercadopago';
import { mercadoPagoEnv } from '../payments/fixtures';
import { registry } from '../../src/platform/metrics';
import { runCliCaptured } from '../helpers/cli';
import { CARDS, VALID_CPF, cardBody, mainSeries, openNextDraw, retriesDue, runsOf, cellsOf } from './fixtures';

/**
 * Autopay with Mercado Pago ("Pagamentos automáticos"), against the strict fake of its API: the
 * card is saved on the user's customer (search by e-mail, create, POST /v1/customers/{id}/cards
 * {token} with the token the browser made with the CVV); each run makes a card token from the saved
 * card (POST /v1/card_tokens {card_id}) and pays with it (POST /v1/payments {token, payer: {type:
 * 'customer', id}}, X-Idempotency-Key = installation + run). A refusal of the request (not of the
 * card) is the operator's failure of the run, never the customer's decline.
 */
let t: TestContext;
let fake: FakeMercadoPago;
let installation: string;
beforeAll(async () => {
  fake = await startFakeMercadoPago({ realQr: false });
  t = await createTestContext({ env: mercadoPagoEnv(fake, { MERCADOPAGO_PUBLIC_KEY: 'APP_USR-public-key-abc' }) });
  installation = (await t.services.db('installation').first('id')).id;
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

async function saveWithMp(token: string, numbers: number[], card: string) {
  return t.api('POST', '/api/me/autopay', {
    token,
    body: { active: true, numbers, holder_name: 'JOAO PEREIRA', doc_number: VALID_CPF, card_token: fake.cardToken(card) },
  });
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
  expect(fake.requests.filter((q) => q.method === 'POST' && q.path === '/v1/customers')).toHaveLength(
    customersBefore === 0 ? 1 : customersBefore + 1,
  );
  // A token Mercado Pago refuses (used already): 400 with the message of the dialog.
  const used = fake.cardToken(CARDS.approve);
  await t.api('POST', '/api/me/autopay', {
    token: u.token,
    body: { active: true, numbers: [40], holder_name: 'J', doc_number: VALID_CPF, card_token: used },
  });
  const again = await t.api('POST', '/api/me/autopay', {
    token: u.token,
    body: { active: true, numbers: [40], holder_name: 'J', doc_number: VALID_CPF, card_token: used },
  });
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
  await retriesDue(t, next);
  expect((await t.services.autopay.runDraw(next)).pending).toBe(1);
  await retriesDue(t, next);
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
  const keyOf = (runId: number) => `${installation}-cotaverde-autopay-run-${runId}`;
  expect(keys.filter((k) => k === keyOf(flakyRun.id))).toHaveLength(3);
  expect(keys.filter((k) => k === keyOf(okRun.id))).toHaveLength(1);
  const okCall = calls.find((c) => c.headers['x-idempotency-key'] === keyOf(okRun.id))!;
  const okProfile = await t.services.db('autopay_profiles').where({ user_id: ok.user.id }).first();
  expect(okCall.status).toBe(201);
  expect(okCall.body).toMatchObject({
    transaction_amount: 5,
    installments: 1,
    binary_mode: true,
    token: expect.any(String),
    payer: { type: 'customer', id: okProfile.provider_customer_id, email: ok.email },
    external_reference: String(okRun.payment_id),
  });
  expect(okCall.body).not.toHaveProperty('card_id');
  // The token paid with was made just before from the saved card, and served once.
  const tok = fake.cardTokens.get((okCall.body as any).token)!;
  expect(tok).toMatchObject({
    card_id: okProfile.provider_card_id,
    customer_id: okProfile.provider_customer_id,
    has_security_code: false,
    used: true,
  });
  const tokenCalls = fake.requests.filter(
    (q) => q.method === 'POST' && q.path === '/v1/card_tokens' && (q.body as any)?.card_id === okProfile.provider_card_id,
  );
  expect(tokenCalls.map((q) => q.body)).toContainEqual({
    card_id: okProfile.provider_card_id,
    customer_id: okProfile.provider_customer_id,
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

describe("a refusal of the request is ours, never the customer's decline", () => {
  /** Only this test's customer has autopay on (the earlier tests' profiles would be charged too). */
  const onlyAutopayOf = (userId: number) => t.services.db('autopay_profiles').whereNot({ user_id: userId }).update({ active: false });
  const refusalsOf = async (status: string) => {
    const m = await registry.getSingleMetric('cotaverde_autopay_provider_refusals_total')!.get();
    return m.values.filter((v) => v.labels.http_status === status).reduce((a, v) => a + v.value, 0);
  };

  test('application not enabled for "Pagamentos automáticos" (400 from Mercado Pago): the run waits held, the numbers stay held, a metric and an error log; once enabled it charges', async () => {
    const { draw } = await mainSeries(t, { price_cents: 300 });
    const u = await createUser(t);
    expect((await saveWithMp(u.token, [7, 8], CARDS.approve)).status).toBe(200);
    await onlyAutopayOf(u.user.id);
    const next = await openNextDraw(t, draw.id);
    const before = await refusalsOf('400');
    fake.automaticPayments = false;
    try {
      const s = await t.services.autopay.runDraw(next);
      expect(s.pending).toBe(1);
      const [run] = await runsOf(t, next);
      expect(run.status).toBe('held');
      expect(run.error).toMatch(/^recusa do provedor, não do cartão \(HTTP 400\)/);
      expect(run.error).toContain('docs/DEPLOY.md');
      expect(run.provider_response).toMatchObject({ error: 'provider_refused', http_status: 400 });
      expect(new Date(run.next_attempt_at).getTime()).toBeGreaterThan(Date.now() + 5 * 60_000);
      expect(await refusalsOf('400')).toBe(before + 1);
      // The customer's numbers are still held for them, their payment not lapsed, the profile active.
      expect((await cellsOf(t, next, [7, 8])).map((c: any) => c.status)).toEqual(['reserved', 'reserved']);
      expect((await t.services.db('payments').where({ id: run.payment_id }).first()).status).toBe('pending');
      expect((await t.services.db('autopay_profiles').where({ user_id: u.user.id }).first()).active).toBe(true);
      // The console and the CLI list it with its reason.
      const admin = await createUser(t, { admin: true });
      const list = await t.api('GET', `/api/admin/autopay/runs?draw_id=${next}`, { token: admin.token });
      expect(list.status).toBe(200);
      expect(list.body.items[0]).toMatchObject({ status: 'held', error: expect.stringContaining('Pagamentos automáticos') });
    } finally {
      fake.automaticPayments = true;
    }
    // The operator enabled it: the next try (10 minutes later) charges with the same key.
    await t.services
      .db('autopay_runs')
      .where({ draw_id: next })
      .update({ next_attempt_at: t.services.db.raw(`now() - interval '1 second'`) });
    expect((await t.services.autopay.runDraw(next)).pending).toBe(0);
    const [run] = await runsOf(t, next);
    expect(run.status).toBe('approved');
    expect((await cellsOf(t, next, [7, 8])).map((c: any) => c.status)).toEqual(['sold', 'sold']);
  });

  test('403 (credentials) until the hold ends: the run ends provider_refused (not failed), the numbers go back to the board, the profile keeps its captive numbers', async () => {
    const { draw } = await mainSeries(t, { price_cents: 300 });
    const u = await createUser(t);
    expect((await saveWithMp(u.token, [9], CARDS.approve)).status).toBe(200);
    await onlyAutopayOf(u.user.id);
    const next = await openNextDraw(t, draw.id);
    const before = await refusalsOf('403');
    // The card token is made; the payment call answers 403.
    const tokensBefore = fake.count('POST', '/v1/card_tokens');
    fake.failNext(1, 403, 'POST');
    await t.services
      .db('autopay_runs')
      .where({ draw_id: next })
      .update({ hold_until: t.services.db.raw(`now() + interval '2 minutes'`) });
    await t.services.autopay.runDraw(next);
    expect(fake.count('POST', '/v1/card_tokens')).toBe(tokensBefore + 1);
    const [run] = await runsOf(t, next);
    expect(run.status).toBe('provider_refused');
    expect(run.error).toContain('HTTP 403');
    expect(await refusalsOf('403')).toBe(before + 1);
    expect((await cellsOf(t, next, [9])).map((c: any) => c.status)).toEqual(['available']);
    expect((await t.services.db('payments').where({ id: run.payment_id }).first()).status).toBe('cancelled');
    const profile = await t.services.db('autopay_profiles').where({ user_id: u.user.id }).first();
    expect(profile.active).toBe(true);
    expect(await t.services.db('autopay_captive_numbers').where({ profile_id: profile.id, active: true }).pluck('n')).toEqual([9]);
    const api = await t.api('GET', `/api/admin/autopay/runs?draw_id=${next}&status=provider_refused`, {
      token: (await createUser(t, { admin: true })).token,
    });
    expect(api.body.items.map((r: any) => r.status)).toEqual(['provider_refused']);
    // The operator's CLI lists it with its reason.
    const cli = await runCliCaptured(
      ['autopay', 'runs', '--draw', String(next), '--status', 'provider_refused', '--json'],
      () => t.services,
    );
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.out)).toEqual([
      expect.objectContaining({ status: 'provider_refused', error: expect.stringContaining('HTTP 403') }),
    ]);
  });

  test('saving a card: the token must carry the security code (Mercado Pago checks the card with its CVV once)', async () => {
    const u = await createUser(t);
    const noCvv = fake.cardToken(CARDS.approve, { securityCode: false });
    const r = await t.api('POST', '/api/me/autopay', {
      token: u.token,
      body: { active: true, numbers: [50], holder_name: 'J', doc_number: VALID_CPF, card_token: noCvv },
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('card_token_invalid');
  });
});

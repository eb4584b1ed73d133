import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { eventually } from '../helpers/eventually';
import { createLogger } from '../../src/platform/logger';
import { startFakeMercadoPago, type FakeMercadoPago } from '../helpers/fake-mercadopago';
import { runCliCaptured } from '../helpers/cli';
import { voucherLotChecks } from '../../src/draws/voucher-checks';
import { soldNumbersThatCount } from '../../src/draws/queries';
import { WEBHOOK_SECRET, balanceOf, buyEbooks, makeProductWithDraw, mercadoPagoEnv, paymentRow, reserve } from './fixtures';

/**
 * Refunds reach everything a payment bought (RULES RF1-RF6): voucher lots tied to their
 * payment, consumptions that record the lots they spent, and a refund or chargeback (webhook or
 * the operator's refund through the provider) that revokes unused vouchers, voids the sales its
 * vouchers bought, reverses the cashback, ends the e-book right and flags the payment. Against
 * the fake Mercado Pago and the real database, racing where money moves.
 */
let fake: FakeMercadoPago;
let t: TestContext;
let admin: Awaited<ReturnType<typeof createUser>>;
/** The app's log lines (info and up), to see a refund waiting for another. */
const logLines: string[] = [];
beforeAll(async () => {
  fake = await startFakeMercadoPago({ realQr: false });
  t = await createTestContext({
    env: mercadoPagoEnv(fake, { RATE_LIMIT_DISABLED: '1' }),
    logger: (config) =>
      createLogger({ level: 'info', name: `test-${config.queuePrefix}`, destination: { write: (s: string) => void logLines.push(s) } }),
  });
  admin = await createUser(t, { admin: true });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

type U = Awaited<ReturnType<typeof createUser>>;
const db = () => t.services.db;
const mpIdOf = async (paymentId: number) => Number((await paymentRow(t, paymentId)).provider_payment_id);

const webhook = async (mpId: number) => {
  const r = await fake.notify(t.url, mpId, { secret: WEBHOOK_SECRET });
  expect(r.status).toBe(200);
  return r.body;
};

/** Buys `quantity` e-books of the product (R$ 5,00 each) and has Mercado Pago approve them: one lot. */
async function buyApproved(u: U, productId: number, quantity: number) {
  const pay = await buyEbooks(t, u.token, productId, quantity, 500);
  const mpId = await mpIdOf(pay.paymentId);
  fake.setStatus(mpId, 'approved');
  expect(await webhook(mpId)).toMatchObject({ status: 'approved' });
  return { paymentId: pay.paymentId, mpId };
}

async function consume(u: U, drawId: number, numbers: number[]) {
  const r = await reserve(t, u.token, drawId, numbers);
  return t.api('POST', '/api/vouchers/consume', { token: u.token, body: { reservationId: r.id, numbers } });
}

const lotOf = (paymentId: number) => db()('voucher_lots').where({ payment_id: paymentId }).first();
const salesOf = (drawId: number, ns: number[]) => db()('number_sales').where({ draw_id: drawId }).whereIn('n', ns).orderBy(['n', 'id']);
const refund = (id: number | string, body: unknown, token = admin.token) =>
  t.api('POST', `/api/admin/payments/${id}/refund`, { token, body });

async function booksHold() {
  const checks = await voucherLotChecks(db());
  expect(checks.filter((c) => !c.ok)).toEqual([]);
}

describe('voucher lots', () => {
  test('each grant is a lot of its payment; a consumption spends the oldest lot first and records each lot and each number', async () => {
    const u = await createUser(t);
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
    const a = await buyApproved(u, product.id, 2);
    const b = await buyApproved(u, product.id, 3);
    expect(await lotOf(a.paymentId)).toMatchObject({ source: 'purchase', granted: 2, remaining: 2, user_id: u.user.id });
    expect(await lotOf(b.paymentId)).toMatchObject({ source: 'purchase', granted: 3, remaining: 3 });

    expect((await consume(u, draw.id, [10, 11, 12])).status).toBe(200);
    expect(await lotOf(a.paymentId)).toMatchObject({ remaining: 0 });
    expect(await lotOf(b.paymentId)).toMatchObject({ remaining: 2 });
    const entry = await db()('voucher_ledger').where({ user_id: u.user.id, reason: 'consume' }).first();
    const spends = await db()('voucher_lot_spends').where({ ledger_id: entry.id }).orderBy('lot_id');
    const [lotA, lotB] = [await lotOf(a.paymentId), await lotOf(b.paymentId)];
    expect(spends.map((s) => [Number(s.lot_id), s.count])).toEqual([
      [Number(lotA.id), 2],
      [Number(lotB.id), 1],
    ]);
    expect((await salesOf(draw.id, [10, 11, 12])).map((s) => [s.n, s.source, Number(s.voucher_lot_id)])).toEqual([
      [10, 'voucher', Number(lotA.id)],
      [11, 'voucher', Number(lotA.id)],
      [12, 'voucher', Number(lotB.id)],
    ]);
    expect(await balanceOf(t, u.user.id, product.id)).toBe(2);
    await booksHold();
  });

  test('an admin grant keeps its own source', async () => {
    const u = await createUser(t);
    const { product } = await makeProductWithDraw(t, { price_cents: 500 });
    const g = await t.services.payments.grantVouchers(
      { user: String(u.user.id), product: String(product.id), quantity: 2 },
      { via: 'cli' },
    );
    expect(await lotOf(g.paymentId)).toMatchObject({ source: 'admin', granted: 2, remaining: 2 });
  });
});

describe('a refund or chargeback reaches everything the payment bought', () => {
  test('open draw (webhook refund): unused vouchers revoked, numbers bought with them released, cashback reversed, e-book right ended, payment flagged', async () => {
    const u = await createUser(t);
    const other = await createUser(t);
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
    await db()('infoproducts').where({ id: product.id }).update({ file_url: 'missing-file.pdf' });
    const a = await buyApproved(u, product.id, 3);
    const keep = await buyApproved(other, product.id, 1);
    expect((await consume(u, draw.id, [20, 21])).status).toBe(200);
    expect((await consume(other, draw.id, [22])).status).toBe(200);
    expect((await t.api('GET', `/api/ebooks/by-draw/${draw.id}`, { token: u.token })).status).toBe(200);
    const cashback = await db()('coupon_ledger').where({ payment_id: a.paymentId, kind: 'credit' }).first();
    expect(cashback.amount_cents).toBe(1500);

    fake.setStatus(a.mpId, 'refunded');
    expect(await webhook(a.mpId)).toMatchObject({ status: 'refunded' });

    // Unused voucher (1 of 3) revoked; the lot is closed.
    expect(await balanceOf(t, u.user.id, product.id)).toBe(0);
    expect(await lotOf(a.paymentId)).toMatchObject({ remaining: 0 });
    expect((await lotOf(a.paymentId)).revoked_at).not.toBeNull();
    // The two numbers its vouchers bought are back on the board; their sales voided (kept as history).
    const cells = await db()('draw_numbers').where({ draw_id: draw.id }).whereIn('n', [20, 21, 22]).orderBy('n');
    expect(cells.map((c) => [c.n, c.status, c.owner_user_id])).toEqual([
      [20, 'available', null],
      [21, 'available', null],
      [22, 'sold', other.user.id],
    ]);
    expect((await salesOf(draw.id, [20, 21])).map((s) => [s.n, s.void_kind, s.voided_at !== null])).toEqual([
      [20, 'released', true],
      [21, 'released', true],
    ]);
    // Cashback reversed.
    expect(await db()('coupon_ledger').where({ payment_id: a.paymentId, kind: 'reversal' }).first()).toMatchObject({ amount_cents: -1500 });
    // The e-book right ended: the link and the download are refused; the other buyer keeps both.
    expect((await t.api('GET', `/api/ebooks/by-draw/${draw.id}`, { token: u.token })).status).toBe(403);
    expect((await t.api('GET', `/api/ebooks/${product.sku}/download`, { token: u.token })).status).toBe(403);
    expect((await t.api('GET', `/api/ebooks/by-draw/${draw.id}`, { token: other.token })).status).toBe(200);
    // Flagged with what was undone.
    const row = await paymentRow(t, a.paymentId);
    expect(row).toMatchObject({ status: 'refunded', flagged_for_review: true });
    expect(row.review_reason).toMatch(/1 voucher não usado revogado/);
    expect(row.review_reason).toMatch(new RegExp(`números 20, 21 do sorteio #${draw.id} liberados`));
    expect(row.review_reason).toMatch(/cashback estornado: R\$ 15,00/);
    expect(row.review_reason).toMatch(/acesso ao e-book encerrado/);
    // A repeated notification changes nothing.
    expect(await webhook(a.mpId)).toMatchObject({ status: 'refunded' });
    expect(await db()('voucher_ledger').where({ payment_id: a.paymentId, reason: 'revoke' })).toHaveLength(1);
    expect(keep.paymentId).toBeGreaterThan(0);
    await booksHold();
  });

  test('closed draw (chargeback): the numbers stay on the board but never win; the public result says why', async () => {
    const u = await createUser(t, { name: 'Fraude Teste' });
    const other = await createUser(t, { name: 'Bruna Dias' });
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
    const a = await buyApproved(u, product.id, 1);
    await buyApproved(other, product.id, 1);
    expect((await consume(u, draw.id, [77])).status).toBe(200);
    expect((await consume(other, draw.id, [33])).status).toBe(200);
    const D = new Date(Date.now() - 3600_000);
    await db()('draws')
      .where({ id: draw.id })
      .update({ status: 'closed', closed_at: new Date(D.getTime() - 3600_000) });

    fake.setStatus(a.mpId, 'charged_back');
    expect(await webhook(a.mpId)).toMatchObject({ status: 'charged_back' });
    const cell = await db()('draw_numbers').where({ draw_id: draw.id, n: 77 }).first();
    expect([cell.status, cell.owner_user_id]).toEqual(['sold', u.user.id]);
    expect((await salesOf(draw.id, [77])).map((s) => s.void_kind)).toEqual(['kept']);
    expect((await soldNumbersThatCount(db(), draw.id)).map((s) => s.n)).toEqual([33]);
    expect((await paymentRow(t, a.paymentId)).review_reason).toMatch(
      new RegExp(`números 77 do sorteio #${draw.id} \\(fechado\\) não concorrem`),
    );

    // 77 is the last number drawn: the walk passes over it (voided) to 33.
    const others = Array.from({ length: 100 }, (_, i) => i).filter((n) => n !== 77 && n !== 33 && n !== 22 && n !== 33);
    const numbers = [...others.slice(0, 18), 33, 77];
    const out = await t.services.results.record(
      { contest_number: 9701, numbers, drawn_at: D },
      { actorUserId: null, actor: 'cli', source: 'cli' },
    );
    const decided = out.decided.find((d) => d.draw_id === draw.id)!;
    expect(decided).toMatchObject({ winning_number: 33, winner_user_id: other.user.id, walk: [{ n: 77, reason: 'voided' }] });
    const pub = await t.api('GET', `/api/draws/${draw.id}/result`);
    expect(pub.body).toMatchObject({ winning_number: 33, winner_initials: 'BD', walk: [{ n: 77, reason: 'voided' }] });
    await booksHold();
  });

  test('a reservation PIX refunded in an open draw: its numbers go back to the board', async () => {
    const u = await createUser(t);
    const { draw } = await makeProductWithDraw(t, { price_cents: 500 });
    const res = await reserve(t, u.token, draw.id, [5, 6]);
    const pix = await t.api('POST', '/api/payments/pix', { token: u.token, body: { reservationId: res.id } });
    expect(pix.status).toBe(201);
    const mpId = await mpIdOf(pix.body.paymentId);
    fake.setStatus(mpId, 'approved');
    await webhook(mpId);
    const r = await refund(pix.body.paymentId, { reason: 'cliente desistiu' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: pix.body.paymentId,
      status: 'refunded',
      refund: { refunded: true, already: false, pending: false },
    });
    const cells = await db()('draw_numbers').where({ draw_id: draw.id }).whereIn('n', [5, 6]).orderBy('n');
    expect(cells.map((c) => c.status)).toEqual(['available', 'available']);
  });
});

describe('the operator refund (POST /api/admin/payments/:id/refund, payments refund)', () => {
  test('asks Mercado Pago to refund with an idempotency key, applies the refund transition and audits both; twice changes nothing', async () => {
    const u = await createUser(t);
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
    const a = await buyApproved(u, product.id, 2);
    expect((await consume(u, draw.id, [40])).status).toBe(200);
    const before = fake.count('POST', `/v1/payments/${a.mpId}/refunds`);

    const r = await refund(a.paymentId, { reason: '  pedido do cliente  ' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: a.paymentId,
      status: 'refunded',
      flagged_for_review: true,
      refund: { refunded: true, already: false },
    });
    const calls = fake.requests.filter((q) => q.method === 'POST' && q.path === `/v1/payments/${a.mpId}/refunds`);
    expect(calls.length).toBe(before + 1);
    // RULES P8: the key starts with this installation's id.
    const installation = (await db()('installation').first('id')).id;
    expect(calls[calls.length - 1].headers['x-idempotency-key']).toBe(`${installation}-cotaverde-refund-${a.paymentId}`);
    expect(fake.payments.get(a.mpId)!.status).toBe('refunded');
    expect(await balanceOf(t, u.user.id, product.id)).toBe(0);
    expect((await db()('draw_numbers').where({ draw_id: draw.id, n: 40 }).first()).status).toBe('available');
    const audit = await db()('audit_log')
      .where({ entity: 'payment', entity_id: String(a.paymentId) })
      .whereIn('action', ['payment.refund_requested', 'payment.refunded'])
      .orderBy('id');
    expect(audit.map((e) => [e.action, e.actor, Number(e.actor_user_id)])).toEqual([
      ['payment.refund_requested', 'admin', admin.user.id],
      ['payment.refunded', 'admin', admin.user.id],
    ]);
    expect(audit[0].data).toMatchObject({ reason: 'pedido do cliente' });
    expect(audit[1].data).toMatchObject({ reason: 'pedido do cliente', undone: { released: [{ drawId: draw.id, numbers: [40] }] } });

    const again = await refund(a.paymentId, { reason: 'de novo' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'refunded', refund: { refunded: false, already: true } });
    expect(fake.count('POST', `/v1/payments/${a.mpId}/refunds`)).toBe(before + 1);
    expect(await db()('audit_log').where({ entity: 'payment', entity_id: String(a.paymentId), action: 'payment.refunded' })).toHaveLength(
      1,
    );
    await booksHold();
  });

  test('a payment that is not approved is a clear 409; validation, unknown, anonymous and wrong role', async () => {
    const u = await createUser(t);
    const { product } = await makeProductWithDraw(t, { price_cents: 500 });
    const pending = await buyEbooks(t, u.token, product.id, 1, 500);
    const r = await refund(pending.paymentId, { reason: 'teste' });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ error: 'payment_not_approved', status: 'pending' });
    expect(r.body.message).toMatch(/Só um pagamento aprovado pode ser reembolsado/);

    const noReason = await refund(pending.paymentId, {});
    expect(noReason.status).toBe(400);
    expect(noReason.body.error).toBe('validation_error');
    expect(JSON.stringify(noReason.body)).toMatch(/motivo/);
    expect((await refund(pending.paymentId, { reason: 'x'.repeat(501) })).status).toBe(400);
    expect((await refund(pending.paymentId, { reason: ' ' })).status).toBe(400);
    expect((await refund('abc', { reason: 'teste' })).status).toBe(400);
    expect((await refund(999999999, { reason: 'teste' })).status).toBe(404);
    const anon = await t.api('POST', `/api/admin/payments/${pending.paymentId}/refund`, { body: { reason: 'teste' } });
    expect(anon.status).toBe(401);
    const customer = await refund(pending.paymentId, { reason: 'teste' }, u.token);
    expect(customer.status).toBe(403);
    expect((await paymentRow(t, pending.paymentId)).status).toBe('pending');
  });

  test('CLI: `payments refund <id> --reason --json` prints one JSON document; without --reason it is a usage error', async () => {
    const u = await createUser(t);
    const { product } = await makeProductWithDraw(t, { price_cents: 500 });
    const a = await buyApproved(u, product.id, 1);
    const missing = await runCliCaptured(['payments', 'refund', String(a.paymentId)], () => t.services);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/--reason/);
    const r = await runCliCaptured(['payments', 'refund', String(a.paymentId), '--reason', 'duplicado', '--json'], () => t.services);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc).toMatchObject({ id: a.paymentId, status: 'refunded', refund: { refunded: true } });
    const text = await runCliCaptured(['payments', 'refund', String(a.paymentId), '--reason', 'duplicado'], () => t.services);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/já estava reembolsado: nada mudou/);
    const audit = await db()('audit_log').where({ entity: 'payment', entity_id: String(a.paymentId), action: 'payment.refunded' });
    expect(audit.map((e) => e.actor)).toEqual(['cli']);
  });
});

describe('races', () => {
  test('a refund racing a voucher consumption of the same lot: whichever wins, no number bought with the lot survives and the books hold', async () => {
    for (let i = 0; i < 6; i++) {
      const u = await createUser(t);
      const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
      const a = await buyApproved(u, product.id, 2);
      const res = await reserve(t, u.token, draw.id, [50, 51]);
      const [c, r] = await Promise.all([
        t.api('POST', '/api/vouchers/consume', { token: u.token, body: { reservationId: res.id, numbers: [50, 51] } }),
        refund(a.paymentId, { reason: `corrida ${i}` }),
      ]);
      expect(r.status).toBe(200);
      expect(r.body.status).toBe('refunded');
      expect([200, 409]).toContain(c.status);
      if (c.status === 409) expect(c.body.error).toBe('insufficient_vouchers');
      expect(await balanceOf(t, u.user.id, product.id)).toBe(0);
      const lot = await lotOf(a.paymentId);
      expect(lot.remaining).toBe(0);
      expect(await db()('number_sales').where({ voucher_lot_id: lot.id }).whereNull('voided_at')).toHaveLength(0);
      const sold = await db()('draw_numbers').where({ draw_id: draw.id, owner_user_id: u.user.id });
      expect(sold).toHaveLength(0);
    }
    await booksHold();
  });

  test('two refunds at once (and the webhook): refunded once, revoked once, reversed once', async () => {
    const u = await createUser(t);
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
    const a = await buyApproved(u, product.id, 3);
    expect((await consume(u, draw.id, [60])).status).toBe(200);
    const answers = await Promise.all([
      refund(a.paymentId, { reason: 'primeiro' }),
      refund(a.paymentId, { reason: 'segundo' }),
      webhook(a.mpId),
    ]);
    expect(answers[0].status).toBe(200);
    expect(answers[1].status).toBe(200);
    // Exactly one of the two says it refunded; the other found it already done.
    expect([answers[0].body.refund, answers[1].body.refund].map((r) => r.already).sort()).toEqual([false, true]);
    expect([answers[0].body.refund, answers[1].body.refund].filter((r) => r.refunded)).toHaveLength(1);
    expect(fake.payments.get(a.mpId)!.status).toBe('refunded');
    expect((await paymentRow(t, a.paymentId)).status).toBe('refunded');
    expect(await db()('voucher_ledger').where({ payment_id: a.paymentId, reason: 'revoke' })).toHaveLength(1);
    expect(await db()('coupon_ledger').where({ payment_id: a.paymentId, kind: 'reversal' })).toHaveLength(1);
    expect(await db()('audit_log').where({ entity: 'payment', entity_id: String(a.paymentId), action: 'payment.refunded' })).toHaveLength(
      1,
    );
    expect(await balanceOf(t, u.user.id, product.id)).toBe(0);
    expect((await db()('draw_numbers').where({ draw_id: draw.id, n: 60 }).first()).status).toBe('available');
    await booksHold();
  });

  test('six refunds of one payment at once: one asks the provider and says it refunded, five answer already; the books hold', async () => {
    const u = await createUser(t);
    const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
    const a = await buyApproved(u, product.id, 3);
    expect((await consume(u, draw.id, [61, 62])).status).toBe(200);
    const before = fake.count('POST', `/v1/payments/${a.mpId}/refunds`);
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => refund(a.paymentId, { reason: `corrida ${i}` })));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    // Every answer shows the payment refunded (the losers waited for the winner's outcome).
    expect(answers.map((r) => r.body.status)).toEqual(Array(6).fill('refunded'));
    const outcomes = answers.map((r) => r.body.refund);
    expect(outcomes.filter((o) => !o.already)).toEqual([{ refunded: true, already: false, pending: false }]);
    expect(outcomes.filter((o) => o.already)).toEqual(Array(5).fill({ refunded: false, already: true, pending: false }));
    // One provider call, one request audit, one transition; revoked and reversed once.
    expect(fake.count('POST', `/v1/payments/${a.mpId}/refunds`)).toBe(before + 1);
    const audit = await db()('audit_log')
      .where({ entity: 'payment', entity_id: String(a.paymentId) })
      .whereIn('action', ['payment.refund_requested', 'payment.refunded']);
    expect(audit.map((e) => e.action).sort()).toEqual(['payment.refund_requested', 'payment.refunded']);
    expect(await db()('voucher_ledger').where({ payment_id: a.paymentId, reason: 'revoke' })).toHaveLength(1);
    expect(await db()('coupon_ledger').where({ payment_id: a.paymentId, kind: 'reversal' })).toHaveLength(1);
    const row = await db()('payments').where({ id: a.paymentId }).first();
    expect([row.status, row.refund_claimed_at]).toEqual(['refunded', null]);
    const cells = await db()('draw_numbers').where({ draw_id: draw.id }).whereIn('n', [61, 62]).orderBy('n');
    expect(cells.map((c) => c.status)).toEqual(['available', 'available']);
    await booksHold();
    const books = await t.services.books.check();
    expect(books.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual([]);
  });

  test('a refund whose provider call fails frees the claim: the next refund asks the provider again and refunds', async () => {
    const u = await createUser(t);
    const { product } = await makeProductWithDraw(t, { price_cents: 500 });
    const a = await buyApproved(u, product.id, 1);
    const before = fake.count('POST', `/v1/payments/${a.mpId}/refunds`);
    fake.failNext(1, 500, 'POST');
    const failed = await refund(a.paymentId, { reason: 'provedor fora' });
    expect(failed.status).toBe(503);
    expect(failed.body).toMatchObject({ error: 'provider_unavailable', message: expect.stringMatching(/indisponível/) });
    const row = await db()('payments').where({ id: a.paymentId }).first();
    expect([row.status, row.refund_claimed_at]).toEqual(['approved', null]);
    const again = await refund(a.paymentId, { reason: 'provedor de volta' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'refunded', refund: { refunded: true, already: false, pending: false } });
    expect(fake.count('POST', `/v1/payments/${a.mpId}/refunds`)).toBe(before + 2);
    await booksHold();
  });

  test('a refund that finds another refund under way waits for it and answers already, without asking the provider', async () => {
    const u = await createUser(t);
    const { product } = await makeProductWithDraw(t, { price_cents: 500 });
    const a = await buyApproved(u, product.id, 1);
    const before = fake.count('POST', `/v1/payments/${a.mpId}/refunds`);
    // Another process's refund holds the claim and is talking to the provider.
    await db()('payments').where({ id: a.paymentId }).update({ refund_claimed_at: db().fn.now() });
    const waiting = refund(a.paymentId, { reason: 'segundo operador' });
    await eventually(
      async () =>
        logLines.some((l) => l.includes('another refund of this payment is under way') && JSON.parse(l).paymentId === a.paymentId),
      'the second refund to wait for the first',
    );
    // That refund's outcome arrives (the provider's notification applies it).
    fake.setStatus(a.mpId, 'refunded');
    expect(await webhook(a.mpId)).toMatchObject({ status: 'refunded' });
    const r = await waiting;
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'refunded', refund: { refunded: false, already: true, pending: false } });
    expect(fake.count('POST', `/v1/payments/${a.mpId}/refunds`)).toBe(before);
    expect(
      await db()('audit_log').where({ entity: 'payment', entity_id: String(a.paymentId), action: 'payment.refund_requested' }),
    ).toHaveLength(0);
    await booksHold();
  });

  test('a claim left by a refund whose process died is taken over once it is stale', async () => {
    const u = await createUser(t);
    const { product } = await makeProductWithDraw(t, { price_cents: 500 });
    const a = await buyApproved(u, product.id, 1);
    await db()('payments')
      .where({ id: a.paymentId })
      .update({ refund_claimed_at: db().raw(`now() - interval '10 minutes'`) });
    const r = await refund(a.paymentId, { reason: 'retomado' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'refunded', refund: { refunded: true, already: false } });
    expect((await db()('payments').where({ id: a.paymentId }).first()).refund_claimed_at).toBeNull();
  });
});

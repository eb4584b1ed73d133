import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { runCliCaptured } from '../helpers/cli';
import { grant, makeDraw, makeProductWithDraw, sellDirectly } from '../draws/fixtures';
import { registerJobHandlers } from '../../jobs/registry';
import { SCHEDULES } from '../../src/platform/queue';
import type { Trx } from '../../src/platform/db';
import type { BooksReport } from '../../src/audit/books';

/**
 * `cotaverde audit books` (RULES B1) on a scratch database filled through the real paths (an
 * e-book PIX approved by the sandbox, vouchers granted and consumed, a hold left active, a draw
 * decided from a recorded Lotomania result): it reports ok and exits 0; then each invariant is
 * corrupted (inside a transaction rolled back afterwards) and the check of that invariant lists
 * the offending id. Committed corruption makes the CLI exit 1 and the nightly job log an error
 * and write an audit entry.
 */
let t: TestContext;
const f: {
  buyer: number;
  other: number;
  productId: number;
  drawId: number;
  ebookPaymentId: number;
  grantPaymentId: number;
  holdId: number;
  decidedDrawId: number;
  contest: number;
} = {} as never;

beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
  const a = await createUser(t);
  const b = await createUser(t);
  f.buyer = a.user.id;
  f.other = b.user.id;
  const { product, draw } = await makeProductWithDraw(t, { price_cents: 200 }, { max_per_user: 0 });
  f.productId = product.id;
  f.drawId = draw.id;
  // An e-book bought by PIX and approved (vouchers and cashback through the one fulfilment).
  const pix = await t.api('POST', '/api/payments/infoproduct', {
    token: a.token,
    body: { infoproduct_id: product.id, quantity: 2, amount_cents_total: 400 },
  });
  expect(pix.status).toBe(201);
  f.ebookPaymentId = pix.body.paymentId;
  await t.services.payments.approveSandbox(f.ebookPaymentId, { via: 'cli' });
  // Vouchers granted by an operator, then two numbers picked with vouchers.
  const g = await grant(t, b.user.id, product.id, 1);
  f.grantPaymentId = (await t.services.db('payments').where({ user_id: b.user.id, kind: 'admin' }).first()).id;
  expect(g).toBeTruthy();
  const res = await t.api('POST', '/api/reservations', { token: a.token, body: { draw_id: draw.id, numbers: [1, 2] } });
  expect(res.status).toBe(201);
  const consumed = await t.api('POST', '/api/vouchers/consume', {
    token: a.token,
    body: { reservationId: res.body.reservationId, numbers: [1, 2] },
  });
  expect(consumed.status).toBe(200);
  // A hold left active.
  const hold = await t.api('POST', '/api/reservations', { token: b.token, body: { draw_id: draw.id, numbers: [5] } });
  expect(hold.status).toBe(201);
  f.holdId = hold.body.reservationId;
  // A draw decided from a recorded result: 7 (last drawn) unsold, 9 sold to the buyer wins.
  const decided = await makeDraw(t, { total_numbers: 100 });
  f.decidedDrawId = decided.id;
  await sellDirectly(t, decided.id, a.user.id, [9, 3]);
  await sellDirectly(t, decided.id, b.user.id, [11]);
  const held = new Date(Date.now() - 3 * 86_400_000);
  await t.services
    .db('draws')
    .where({ id: decided.id })
    .update({ status: 'closed', closed_at: new Date(held.getTime() - 3600_000) });
  f.contest = 2700;
  const numbers = [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 11, 9, 7];
  const out = await t.services.results.record(
    { contest_number: f.contest, numbers, drawn_at: held },
    { actorUserId: null, actor: 'cli', source: 'cli' },
  );
  expect(out.decided).toEqual([expect.objectContaining({ draw_id: decided.id, winning_number: 9, winner_user_id: a.user.id })]);
});
afterAll(() => t.close());

const cli = (argv: string[]) => runCliCaptured(argv, () => t.services);
const ROLLBACK = new Error('rollback');

/** Runs `corrupt` and the books inside one transaction that is then rolled back. */
async function booksAfter(corrupt: (trx: Trx) => Promise<unknown>): Promise<BooksReport> {
  let report: BooksReport | undefined;
  await t.services.db
    .transaction(async (trx) => {
      await corrupt(trx);
      report = await t.services.books.check(trx);
      throw ROLLBACK;
    })
    .catch((e) => {
      if (e !== ROLLBACK) throw e;
    });
  return report!;
}
const checkOf = (r: BooksReport, name: string) => {
  const c = r.checks.find((x) => x.name === name);
  if (!c) throw new Error(`no check ${name}`);
  return c;
};
const failedNames = (r: BooksReport) => r.checks.filter((c) => !c.ok).map((c) => c.name);

const CHECK_NAMES = [
  'approved_payments_fulfilled_once',
  'deliveries_go_to_payer',
  'sold_cells_match_live_sales',
  'held_cells_have_active_reservation',
  'one_open_draw_per_product',
  'voucher_balances_match_ledger',
  'voucher_consumptions_have_lots',
  'no_void_sale_wins',
  'decided_winners_rederive',
  'coupon_balances_match_ledger',
];

test('a clean database: every check holds, the CLI says so and exits 0; --json is exactly one document', async () => {
  // The set-up really went through the paths the checks look at.
  expect(await t.services.db('payment_fulfilments').whereIn('payment_id', [f.ebookPaymentId, f.grantPaymentId])).toHaveLength(2);
  expect(Number((await t.services.db('coupon_ledger').where({ user_id: f.buyer }).sum({ s: 'amount_cents' }))[0].s)).toBeGreaterThan(0);
  expect((await t.services.db('draws').where({ id: f.decidedDrawId }).first()).status).toBe('drawn');

  const report = await t.services.books.check();
  expect(report.checks.map((c) => c.name).sort()).toEqual([...CHECK_NAMES].sort());
  expect(failedNames(report)).toEqual([]);
  expect(report.ok).toBe(true);
  // The fixture's consumptions recorded their lots.
  expect(await t.services.db('voucher_lot_spends')).not.toHaveLength(0);
  expect(checkOf(report, 'voucher_consumptions_have_lots')).toMatchObject({ ok: true, count: 0, ids: [] });

  const text = await cli(['audit', 'books']);
  expect(text).toMatchObject({ code: 0, err: '' });
  expect(text.out).toContain('os livros conferem');
  for (const name of CHECK_NAMES) expect(text.out).toMatch(new RegExp(`^ok +${name}`, 'm'));

  const json = await cli(['audit', 'books', '--json']);
  expect(json).toMatchObject({ code: 0, err: '' });
  expect(json.out.trim().split('\n')).toHaveLength(1);
  const doc = JSON.parse(json.out);
  expect(doc.ok).toBe(true);
  expect(doc.checks).toHaveLength(CHECK_NAMES.length);
  for (const c of doc.checks)
    expect(
      Object.keys(c)
        .filter((k) => k !== 'note')
        .sort(),
    ).toEqual(['count', 'ids', 'name', 'ok']);
});

test.each<[string, string, (trx: Trx) => Promise<unknown>, () => Array<number | string>]>([
  [
    'an approved payment loses its fulfilment',
    'approved_payments_fulfilled_once',
    (trx) => trx('payment_fulfilments').where({ payment_id: f.ebookPaymentId }).delete(),
    () => [f.ebookPaymentId],
  ],
  [
    'a payment that was never approved is fulfilled',
    'approved_payments_fulfilled_once',
    async (trx) => {
      const [p] = await trx('payments')
        .insert({
          user_id: f.buyer,
          kind: 'infoproduct',
          method: 'pix',
          provider: 'sandbox',
          status: 'pending',
          amount_cents: 200,
          quantity: 1,
          infoproduct_id: f.productId,
        })
        .returning('id');
      (f as any).pendingId = p.id;
      await trx('payment_fulfilments').insert({ payment_id: p.id });
    },
    () => [(f as any).pendingId],
  ],
  [
    "a payment's vouchers go to someone else",
    'deliveries_go_to_payer',
    (trx) => trx('voucher_ledger').where({ payment_id: f.ebookPaymentId, reason: 'grant' }).update({ user_id: f.other }),
    () => [f.ebookPaymentId],
  ],
  [
    'a voucher balance drifts from its ledger',
    'voucher_balances_match_ledger',
    (trx) => trx('voucher_balances').where({ user_id: f.buyer, infoproduct_id: f.productId }).increment('balance', 1),
    () => [`${f.buyer}:${f.productId}`],
  ],
  [
    'a cell is sold without a sale',
    'sold_cells_match_live_sales',
    (trx) => trx('draw_numbers').where({ draw_id: f.drawId, n: 40 }).update({ status: 'sold', owner_user_id: f.buyer }),
    () => [`${f.drawId}:40`],
  ],
  [
    'a sale of an open draw is voided but its cell stays sold',
    'sold_cells_match_live_sales',
    (trx) => trx('number_sales').where({ draw_id: f.drawId, n: 1 }).update({ voided_at: trx.fn.now(), void_kind: 'released' }),
    () => [`${f.drawId}:1`],
  ],
  [
    'a held cell whose reservation is no longer active',
    'held_cells_have_active_reservation',
    (trx) => trx('reservations').where({ id: f.holdId }).update({ status: 'expired' }),
    () => [`${f.drawId}:5`],
  ],
  [
    'a second open draw of a product',
    'one_open_draw_per_product',
    async (trx) => {
      await trx.raw('DROP INDEX draws_one_open_per_product');
      await trx('draws').insert({ infoproduct_id: f.productId, title: 'Segunda', status: 'open' });
    },
    () => [f.productId],
  ],
  [
    "the winner's sale is voided (refunded after the close)",
    'no_void_sale_wins',
    (trx) => trx('number_sales').where({ draw_id: f.decidedDrawId, n: 9 }).update({ voided_at: trx.fn.now(), void_kind: 'kept' }),
    () => [f.decidedDrawId],
  ],
  [
    "the winner's payment is charged back",
    'no_void_sale_wins',
    async (trx) => {
      const [p] = await trx('payments')
        .insert({
          user_id: f.buyer,
          kind: 'reservation',
          method: 'pix',
          provider: 'sandbox',
          status: 'charged_back',
          amount_cents: 100,
          draw_id: f.decidedDrawId,
          numbers: [9],
        })
        .returning('id');
      await trx('payment_fulfilments').insert({ payment_id: p.id });
      await trx('number_sales').where({ draw_id: f.decidedDrawId, n: 9 }).update({ payment_id: p.id });
    },
    () => [f.decidedDrawId],
  ],
  [
    'a stored winner the result does not give',
    'decided_winners_rederive',
    (trx) => trx('draws').where({ id: f.decidedDrawId }).update({ winner_number: 3 }),
    () => [f.decidedDrawId],
  ],
  [
    'a stored result changed under a decided draw',
    'decided_winners_rederive',
    (trx) =>
      trx('lottery_results')
        .where({ contest_number: f.contest })
        .update({ numbers: [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 9, 7, 11] }),
    () => [f.decidedDrawId],
  ],
  [
    'a coupon balance drifts from its ledger',
    'coupon_balances_match_ledger',
    (trx) => trx('coupon_accounts').where({ user_id: f.buyer }).increment('balance_cents', 5),
    () => [f.buyer],
  ],
])('%s → %s reports it', async (_what, name, corrupt, expected) => {
  const report = await booksAfter(corrupt);
  const c = checkOf(report, name);
  expect(c.ok).toBe(false);
  expect(c.ids).toEqual(expect.arrayContaining(expected()));
  expect(c.count).toBe(c.ids.length);
  expect(report.ok).toBe(false);
  // Rolled back: the books balance again.
  expect((await t.services.books.check()).ok).toBe(true);
});

test('the winner of a decided draw voided after the close stays on the board: only the winner checks complain', async () => {
  const report = await booksAfter((trx) =>
    trx('number_sales').where({ draw_id: f.decidedDrawId, n: 9 }).update({ voided_at: trx.fn.now(), void_kind: 'kept' }),
  );
  expect(failedNames(report).sort()).toEqual(['decided_winners_rederive', 'no_void_sale_wins']);
});

test('voucher lots: a consumption whose lot spends are missing or do not add up, or lots that disagree with the balance, are reported', async () => {
  const consumes = async (trx: Trx) =>
    (await trx('voucher_ledger').where({ reason: 'consume' }).orderBy('id').select('id')).map((r: { id: string | number }) => Number(r.id));
  let ids: number[] = [];
  let report = await booksAfter(async (trx) => {
    ids = await consumes(trx);
    await trx('voucher_lot_spends').whereIn('ledger_id', ids).del();
  });
  expect(ids.length).toBeGreaterThan(0);
  expect(checkOf(report, 'voucher_consumptions_have_lots')).toMatchObject({ ok: false, ids });
  report = await booksAfter(async (trx) => {
    ids = (await consumes(trx)).slice(0, 1);
    await trx('voucher_lot_spends')
      .where({ ledger_id: ids[0] })
      .update({ count: trx.raw('count + 1') });
  });
  expect(checkOf(report, 'voucher_consumptions_have_lots')).toMatchObject({ ok: false, ids });
  let key = '';
  report = await booksAfter(async (trx) => {
    const lot = await trx('voucher_lots').where('remaining', '>', 0).orderBy('id').first();
    key = `lots:${lot.user_id}:${lot.infoproduct_id}`;
    await trx('voucher_lots')
      .where({ id: lot.id })
      .update({ remaining: trx.raw('remaining - 1') });
  });
  expect(checkOf(report, 'voucher_consumptions_have_lots')).toMatchObject({ ok: false, ids: [key] });
});

test('committed corruption: the CLI exits 1 and names it; the nightly job logs an error and writes an audit entry', async () => {
  expect(SCHEDULES).toContainEqual(expect.objectContaining({ id: 'books-audit-nightly', name: 'books.audit' }));
  await t.services.db('coupon_accounts').where({ user_id: f.buyer }).increment('balance_cents', 7);
  try {
    const text = await cli(['audit', 'books']);
    expect(text.code).toBe(1);
    expect(text.out).toContain(`FALHOU  coupon_balances_match_ledger: 1 (ids: ${f.buyer})`);
    expect(text.out).toContain('os livros NÃO conferem: 1 verificação falhou');
    const json = await cli(['audit', 'books', '--json']);
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.out);
    expect(doc.ok).toBe(false);
    expect(doc.checks.find((c: { name: string }) => c.name === 'coupon_balances_match_ledger')).toEqual({
      name: 'coupon_balances_match_ledger',
      ok: false,
      count: 1,
      ids: [f.buyer],
    });

    const errorLog = jest.spyOn(t.services.logger, 'error');
    try {
      const handlers = registerJobHandlers(t.services);
      await (handlers['books.audit'] as (d: unknown, j: unknown) => Promise<unknown>)({}, {});
      expect(errorLog).toHaveBeenCalledWith(
        expect.objectContaining({ failed: [expect.objectContaining({ name: 'coupon_balances_match_ledger', count: 1 })] }),
        'books do not balance',
      );
    } finally {
      errorLog.mockRestore();
    }
    const entry = await t.services.db('audit_log').where({ action: 'books.failed' }).orderBy('id', 'desc').first();
    expect(entry).toMatchObject({
      actor: 'system',
      entity: 'books',
      data: { failed: [{ name: 'coupon_balances_match_ledger', count: 1, ids: [f.buyer] }] },
    });
  } finally {
    await t.services.db('coupon_accounts').where({ user_id: f.buyer }).decrement('balance_cents', 7);
  }
  // Balanced again: the job writes no entry.
  const before = await t.services.db('audit_log').where({ action: 'books.failed' }).count({ c: '*' });
  await registerJobHandlers(t.services)['books.audit']({} as never, {} as never);
  expect(await t.services.db('audit_log').where({ action: 'books.failed' }).count({ c: '*' })).toEqual(before);
  expect((await cli(['audit', 'books'])).code).toBe(0);
});

import { createTestContext, createUser, type TestContext } from '../helpers/context';
import { voucherLotChecks } from '../../src/draws/voucher-checks';
import { up as backfill } from '../../migrations/20261125050100_voucher-lots-backfill';
import { makeProductWithDraw, reserve } from './fixtures';

/**
 * The voucher lots' data migration, replayed on ledgers written before lots existed: the lot
 * tables are emptied in a transaction (as they were before the migration) and the backfill must
 * rebuild lots whose remaining equals each balance, spends for every consumption (oldest lot
 * first) and the lot of each number picked with vouchers.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ env: { RATE_LIMIT_DISABLED: '1' } });
});
afterAll(() => t.close());

test('lots, spends and number lots are rebuilt from the ledger; the books hold', async () => {
  const u = await createUser(t);
  const { product, draw } = await makeProductWithDraw(t, { price_cents: 500 });
  const g1 = await t.services.payments.grantVouchers({ user: String(u.user.id), product: String(product.id), quantity: 2 }, { via: 'cli' });
  const g2 = await t.services.payments.grantVouchers({ user: String(u.user.id), product: String(product.id), quantity: 2 }, { via: 'cli' });
  const res = await reserve(t, u.token, draw.id, [3, 4, 5]);
  expect(
    (await t.api('POST', '/api/vouchers/consume', { token: u.token, body: { reservationId: res.id, numbers: [3, 4, 5] } })).status,
  ).toBe(200);
  const db = t.services.db;
  const before = await db('voucher_lots').where({ user_id: u.user.id }).orderBy('id').select('payment_id', 'granted', 'remaining');
  const ROLLBACK = new Error('rollback');
  await db
    .transaction(async (trx) => {
      await trx('number_sales').update({ voucher_lot_id: null });
      await trx('voucher_ledger').update({ lot_id: null });
      await trx('voucher_lot_spends').del();
      await trx('voucher_lots').del();
      await backfill(trx);
      const after = await trx('voucher_lots').where({ user_id: u.user.id }).orderBy('id').select('payment_id', 'granted', 'remaining');
      expect(after).toEqual(before);
      expect(after.map((l) => Number(l.payment_id))).toEqual([g1.paymentId, g2.paymentId]);
      const lots = await trx('voucher_lots').where({ user_id: u.user.id }).orderBy('id').select('id');
      const sales = await trx('number_sales').where({ draw_id: draw.id }).orderBy('n').select('n', 'voucher_lot_id');
      // One consumption spanning two lots: its numbers take the first lot it spent (the backfill's approximation).
      expect(sales.map((s) => [s.n, Number(s.voucher_lot_id)])).toEqual([3, 4, 5].map((n) => [n, Number(lots[0].id)]));
      expect((await voucherLotChecks(trx)).filter((c) => !c.ok)).toEqual([]);
      throw ROLLBACK;
    })
    .catch((e) => {
      if (e !== ROLLBACK) throw e;
    });
});

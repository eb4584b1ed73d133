import type { TestContext } from '../helpers/context';
import { makeDraw, type DrawOpts } from '../draws/fixtures';
import type { DrawRow } from '../../src/draws/queries';

/**
 * Set-up for the held raffles, buyers and winners tests: sales with a given source and payment,
 * and drawn draws with a winner written straight into the draws row (the winner decision from a
 * Lotomania result is another module's; these tests only read and edit what it stores).
 */

/** Sells `numbers` of a draw to a user as `source`, optionally under one payment of `amountCents` with `paymentStatus`. */
export async function sell(
  t: TestContext,
  drawId: number,
  userId: number,
  numbers: number[],
  o: { source?: 'voucher' | 'pix' | 'autopay' | 'admin'; amountCents?: number; paymentStatus?: string; voided?: boolean } = {},
) {
  const source = o.source ?? 'pix';
  await t.services.db.transaction(async (trx) => {
    let paymentId: number | null = null;
    if (o.amountCents !== undefined) {
      const [p] = await trx('payments')
        .insert({
          user_id: userId,
          kind: source === 'admin' ? 'admin' : source === 'autopay' ? 'autopay' : 'reservation',
          method: source === 'admin' ? 'admin' : source === 'autopay' ? 'card' : 'pix',
          provider: source === 'admin' ? 'admin' : 'sandbox',
          status: o.paymentStatus ?? 'approved',
          amount_cents: o.amountCents,
          draw_id: drawId,
          numbers,
          paid_at: trx.fn.now(),
        })
        .returning('id');
      paymentId = p.id;
    }
    if (!o.voided)
      await trx('draw_numbers')
        .where({ draw_id: drawId })
        .whereIn('n', numbers)
        .update({ status: 'sold', owner_user_id: userId, payment_id: paymentId, sold_at: trx.fn.now() });
    await trx('number_sales').insert(
      numbers.map((n) => ({
        draw_id: drawId,
        n,
        user_id: userId,
        payment_id: paymentId,
        source,
        voided_at: o.voided ? trx.fn.now() : null,
        void_kind: o.voided ? 'released' : null,
      })),
    );
  });
  t.services.draws.invalidateBoard(drawId);
}

/** A closed draw made drawn: `winner` (or none) holds `number`, realized `daysAgo` days ago. */
export async function drawnDraw(
  t: TestContext,
  o: { winnerUserId: number | null; number?: number; contest?: number; daysAgo?: number; openedDaysBefore?: number; draw?: DrawOpts },
): Promise<DrawRow> {
  const d = await makeDraw(t, { total_numbers: 100, ...o.draw, status: 'closed' });
  const n = o.number ?? 7;
  if (o.winnerUserId != null) await sell(t, d.id, o.winnerUserId, [n], { source: 'pix', amountCents: 500 });
  const realized = new Date(Date.now() - (o.daysAgo ?? 0) * 86_400_000 - 60_000);
  const closed = new Date(realized.getTime() - 86_400_000);
  const opened = new Date(closed.getTime() - (o.openedDaysBefore ?? 5) * 86_400_000);
  const [row] = await t.services
    .db('draws')
    .where({ id: d.id })
    .update({
      status: 'drawn',
      opened_at: opened,
      closed_at: closed,
      realized_at: realized,
      contest_number: o.contest ?? 2600 + d.id,
      winner_user_id: o.winnerUserId,
      winner_number: o.winnerUserId != null ? n : null,
      no_winner: o.winnerUserId == null,
    })
    .returning('*');
  t.services.readCache.invalidateAll();
  return row;
}

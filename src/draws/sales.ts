import type { Conn, Trx } from '../platform/db';
import { lockForSale, type Cell } from './locks';

/**
 * The one owner of selling, releasing and voiding numbers. Every path that moves a number
 * (voucher consumption, a paid reservation, an admin's assignment, autopay, expiry, a refund)
 * goes through these functions, and every lock they and their callers take comes from
 * lockForSale (locks.ts), in the one order of RULES N4. Sales in one draw serialize on the draw
 * row, so exactly one sale sees the board sold out.
 */

export type SaleSource = 'voucher' | 'pix' | 'autopay' | 'admin';

export type { Cell };

/** Cells of a draw the caller has locked (or just created), locked in number order: lockForSale's cell step. */
export async function lockCells(trx: Conn, drawId: number, numbers: number[]): Promise<Cell[]> {
  return (await lockForSale(trx, { drawIds: [drawId], numbers })).cells;
}

/**
 * Holds cells the caller has already locked (draw row, then cells in number order) for several
 * users at once: one active reservation per user (with its source and end) and each of its cells
 * marked reserved by it, only where still available. Answers each user's reservation id. Autopay
 * holds a new draw's captive numbers so (RULES A2), and releasing goes through releaseReservation.
 */
export async function holdCells(
  trx: Conn,
  h: { drawId: number; holds: Array<{ userId: number; numbers: number[] }>; source: 'autopay'; expiresAt: Date },
): Promise<Map<number, number>> {
  const reservationOf = new Map<number, number>();
  const holds = h.holds.filter((x) => x.numbers.length);
  if (!holds.length) return reservationOf;
  const inserted: Array<{ id: number; user_id: number }> = await trx('reservations')
    .insert(
      holds.map((x) => ({
        user_id: x.userId,
        draw_id: h.drawId,
        numbers: x.numbers,
        status: 'active',
        source: h.source,
        expires_at: h.expiresAt,
      })),
    )
    .returning(['id', 'user_id']);
  for (const r of inserted) reservationOf.set(Number(r.user_id), Number(r.id));
  const ns: number[] = [];
  const rids: number[] = [];
  for (const x of holds) {
    for (const n of x.numbers) {
      ns.push(n);
      rids.push(reservationOf.get(x.userId)!);
    }
  }
  await trx.raw(
    `UPDATE draw_numbers dn SET status = 'reserved', reservation_id = v.rid, updated_at = now()
       FROM (SELECT unnest(?::int[]) AS n, unnest(?::bigint[]) AS rid) v
      WHERE dn.draw_id = ? AND dn.n = v.n AND dn.status = 'available'`,
    [ns, rids, h.drawId],
  );
  return reservationOf;
}

/**
 * Sells cells the caller has already locked and checked: marks them sold to the buyer and
 * appends them to number_sales (at most one live sale per number, in the database). Throws if
 * any cell was not in a sellable state, so a caller's mistake can never sell silently.
 * `lotOf` names the voucher lot that paid each number picked with vouchers.
 */
export async function sellNumbers(
  trx: Conn,
  s: {
    drawId: number;
    numbers: number[];
    userId: number;
    paymentId?: number | null;
    source: SaleSource;
    lotOf?: (n: number) => number | null;
  },
): Promise<void> {
  if (!s.numbers.length) return;
  const changed = await trx('draw_numbers')
    .where({ draw_id: s.drawId })
    .whereIn('n', s.numbers)
    .whereNot({ status: 'sold' })
    .update({
      status: 'sold',
      owner_user_id: s.userId,
      reservation_id: null,
      payment_id: s.paymentId ?? null,
      sold_at: trx.fn.now(),
      updated_at: trx.fn.now(),
    });
  if (changed !== s.numbers.length) throw new Error(`sellNumbers: ${s.numbers.length - changed} of draw ${s.drawId} not sellable`);
  await trx('number_sales').insert(
    s.numbers.map((n) => ({
      draw_id: s.drawId,
      n,
      user_id: s.userId,
      payment_id: s.paymentId ?? null,
      source: s.source,
      voucher_lot_id: s.lotOf?.(n) ?? null,
    })),
  );
}

/**
 * Ends a reservation: the reservation row is locked first, then what it still holds goes back
 * to the board (its cells locked in (draw, number) order), then it takes its final status. A sale
 * ('paid', 'consumed') sets it whatever it was (a late approval pays an expired one); 'expired'
 * and 'cancelled' only end an active one. Returns the draw id when cells were released.
 */
export async function releaseReservation(
  trx: Trx,
  reservationId: number,
  status: 'expired' | 'cancelled' | 'paid' | 'consumed',
): Promise<number | null> {
  const { cells: held } = await lockForSale(trx, { reservationId, drawIds: [], heldBy: reservationId });
  if (held.length) {
    await trx('draw_numbers')
      .where({ reservation_id: reservationId, status: 'reserved' })
      .update({ status: 'available', reservation_id: null, updated_at: trx.fn.now() });
  }
  const q = trx('reservations').where({ id: reservationId });
  if (status === 'expired' || status === 'cancelled') q.where({ status: 'active' });
  await q.update({ status, updated_at: trx.fn.now() });
  return held.length ? (held[0] as Cell & { draw_id: number }).draw_id : null;
}

export interface VoidOutcome {
  /** Numbers put back on the board of a draw still open. */
  released: Array<{ drawId: number; numbers: number[] }>;
  /** Numbers of a closed or drawn draw: they stay on the board, voided, and never win. */
  kept: Array<{ drawId: number; numbers: number[]; status: string }>;
}

/**
 * Voids live sales (a refund or chargeback took back the money that bought them; RULES RF3, N5):
 * in a draw still open the numbers go back to
 * the board; in a closed or drawn draw they stay sold on the board (history) but their sale is
 * voided, so the winner walk-back passes over them. The sale rows are kept either way.
 * The caller has locked the draw rows (draw ids ascending) before anything of the buyer's vouchers.
 */
export async function voidSales(trx: Trx, saleIds: number[]): Promise<VoidOutcome> {
  const out: VoidOutcome = { released: [], kept: [] };
  if (!saleIds.length) return out;
  const sales: Array<{ id: number; draw_id: number; n: number; user_id: number }> = await trx('number_sales')
    .whereIn('id', saleIds)
    .whereNull('voided_at')
    .orderBy([{ column: 'draw_id' }, { column: 'n' }])
    .select('id', 'draw_id', 'n', 'user_id');
  const byDraw = new Map<number, typeof sales>();
  for (const s of sales) byDraw.set(s.draw_id, [...(byDraw.get(s.draw_id) ?? []), s]);
  for (const [drawId, rows] of byDraw) {
    const numbers = rows.map((r) => r.n);
    // The cells only in an open draw: a closed or drawn one keeps them on the board.
    const { draw, cells } = await lockForSale(trx, { drawIds: [drawId], numbers, guard: (d) => d.status === 'open' });
    if (draw?.status !== 'open') {
      await trx('number_sales')
        .whereIn(
          'id',
          rows.map((r) => r.id),
        )
        .update({ voided_at: trx.fn.now(), void_kind: 'kept' });
      out.kept.push({ drawId, numbers, status: draw?.status ?? 'closed' });
      continue;
    }
    const mine = new Set(
      cells.filter((c) => c.status === 'sold' && rows.some((r) => r.n === c.n && r.user_id === c.owner_user_id)).map((c) => c.n),
    );
    const ns = numbers.filter((n) => mine.has(n));
    if (ns.length) {
      await trx('draw_numbers').where({ draw_id: drawId }).whereIn('n', ns).update({
        status: 'available',
        owner_user_id: null,
        reservation_id: null,
        payment_id: null,
        sold_at: null,
        updated_at: trx.fn.now(),
      });
    }
    await trx('number_sales')
      .whereIn(
        'id',
        rows.map((r) => r.id),
      )
      .update({ voided_at: trx.fn.now(), void_kind: 'released' });
    out.released.push({ drawId, numbers: ns });
  }
  return out;
}

/** Live sales a payment bought: directly, or with the vouchers of the given lots. */
export async function liveSalesOf(
  conn: Conn,
  o: { paymentId: number; lotIds: number[] },
): Promise<Array<{ id: number; draw_id: number; n: number }>> {
  return conn('number_sales')
    .whereNull('voided_at')
    .where((w) => {
      w.where('payment_id', o.paymentId);
      if (o.lotIds.length) w.orWhereIn('voucher_lot_id', o.lotIds);
    })
    .orderBy([{ column: 'draw_id' }, { column: 'n' }])
    .select('id', 'draw_id', 'n');
}

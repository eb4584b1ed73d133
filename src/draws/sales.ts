import type { Conn, Trx } from '../platform/db';
import type { DrawRow } from './queries';

/**
 * The one owner of selling, releasing and voiding numbers. Every path that moves a number
 * (voucher consumption, a paid reservation, an admin's assignment, autopay, expiry, a refund)
 * goes through these functions, and they all take their locks in one order (RULES N4, one lock
 * order for selling and releasing; voucher balance and lots come last):
 *
 *   reservation row → draw row → the draw's cells in number order → (draw, user) advisory lock
 *   → the user's voucher balance → the user's voucher lots.
 *
 * Sales in one draw serialize on the draw row, so exactly one sale sees the board sold out.
 */

export type SaleSource = 'voucher' | 'pix' | 'autopay' | 'admin';

export interface Cell {
  n: number;
  status: 'available' | 'reserved' | 'sold';
  reservation_id: number | null;
  owner_user_id: number | null;
}

/** The draw row, locked for a sale (or a void) in it. */
export function lockDrawForSale(trx: Conn, drawId: number): Promise<DrawRow | undefined> {
  return trx('draws').where({ id: drawId }).forUpdate().first() as Promise<DrawRow | undefined>;
}

/** Cells of a draw, locked in number order (after the draw row). */
export function lockCells(trx: Conn, drawId: number, numbers: number[]): Promise<Cell[]> {
  return trx('draw_numbers')
    .where({ draw_id: drawId })
    .whereIn('n', numbers)
    .orderBy('n')
    .forUpdate()
    .select('n', 'status', 'reservation_id', 'owner_user_id');
}

/**
 * Sells cells the caller has already locked and checked: marks them sold to the buyer and
 * appends them to number_sales (at most one live sale per number, in the database). Throws if
 * any cell was not in a sellable state, so a caller's mistake can never sell silently.
 * `lotOf` names the voucher lot that paid each number picked with vouchers.
 */
export async function sellNumbers(
  trx: Conn,
  s: { drawId: number; numbers: number[]; userId: number; paymentId?: number | null; source: SaleSource; lotOf?: (n: number) => number | null },
): Promise<void> {
  if (!s.numbers.length) return;
  const changed = await trx('draw_numbers')
    .where({ draw_id: s.drawId })
    .whereIn('n', s.numbers)
    .whereNot({ status: 'sold' })
    .update({ status: 'sold', owner_user_id: s.userId, reservation_id: null, payment_id: s.paymentId ?? null, sold_at: trx.fn.now(), updated_at: trx.fn.now() });
  if (changed !== s.numbers.length) throw new Error(`sellNumbers: ${s.numbers.length - changed} of draw ${s.drawId} not sellable`);
  await trx('number_sales').insert(
    s.numbers.map((n) => ({ draw_id: s.drawId, n, user_id: s.userId, payment_id: s.paymentId ?? null, source: s.source, voucher_lot_id: s.lotOf?.(n) ?? null })),
  );
}

/**
 * Puts back on the board every cell a reservation still holds, cells locked in number order.
 * Returns the draw id when something was released.
 */
async function releaseHeldCells(trx: Conn, reservationId: number): Promise<number | null> {
  const held: Array<{ draw_id: number }> = await trx('draw_numbers')
    .where({ reservation_id: reservationId, status: 'reserved' })
    .orderBy(['draw_id', 'n'])
    .forUpdate()
    .select('draw_id', 'n');
  if (!held.length) return null;
  await trx('draw_numbers')
    .where({ reservation_id: reservationId, status: 'reserved' })
    .update({ status: 'available', reservation_id: null, updated_at: trx.fn.now() });
  return held[0].draw_id;
}

/**
 * Ends a reservation: the reservation row is locked first, then what it still holds goes back
 * to the board, then it takes its final status. A sale ('paid', 'consumed') sets it whatever it
 * was (a late approval pays an expired one); 'expired' and 'cancelled' only end an active one.
 * Returns the draw id when cells were released.
 */
export async function releaseReservation(trx: Trx, reservationId: number, status: 'expired' | 'cancelled' | 'paid' | 'consumed'): Promise<number | null> {
  await trx('reservations').where({ id: reservationId }).forUpdate().first('id');
  const drawId = await releaseHeldCells(trx, reservationId);
  const q = trx('reservations').where({ id: reservationId });
  if (status === 'expired' || status === 'cancelled') q.where({ status: 'active' });
  await q.update({ status, updated_at: trx.fn.now() });
  return drawId;
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
    const draw = await lockDrawForSale(trx, drawId);
    const numbers = rows.map((r) => r.n);
    if (draw?.status !== 'open') {
      await trx('number_sales').whereIn('id', rows.map((r) => r.id)).update({ voided_at: trx.fn.now(), void_kind: 'kept' });
      out.kept.push({ drawId, numbers, status: draw?.status ?? 'closed' });
      continue;
    }
    const cells = await lockCells(trx, drawId, numbers);
    const mine = new Set(cells.filter((c) => c.status === 'sold' && rows.some((r) => r.n === c.n && r.user_id === c.owner_user_id)).map((c) => c.n));
    const ns = numbers.filter((n) => mine.has(n));
    if (ns.length) {
      await trx('draw_numbers')
        .where({ draw_id: drawId })
        .whereIn('n', ns)
        .update({ status: 'available', owner_user_id: null, reservation_id: null, payment_id: null, sold_at: null, updated_at: trx.fn.now() });
    }
    await trx('number_sales').whereIn('id', rows.map((r) => r.id)).update({ voided_at: trx.fn.now(), void_kind: 'released' });
    out.released.push({ drawId, numbers: ns });
  }
  return out;
}

/** Live sales a payment bought: directly, or with the vouchers of the given lots. */
export async function liveSalesOf(conn: Conn, o: { paymentId: number; lotIds: number[] }): Promise<Array<{ id: number; draw_id: number; n: number }>> {
  return conn('number_sales')
    .whereNull('voided_at')
    .where((w) => {
      w.where('payment_id', o.paymentId);
      if (o.lotIds.length) w.orWhereIn('voucher_lot_id', o.lotIds);
    })
    .orderBy([{ column: 'draw_id' }, { column: 'n' }])
    .select('id', 'draw_id', 'n');
}

/** Locks draw rows in id order (the first step of a write that touches several draws). */
export async function lockDraws(trx: Trx, drawIds: number[]): Promise<void> {
  for (const id of [...new Set(drawIds)].sort((a, b) => a - b)) await lockDrawForSale(trx, id);
}

import type { Conn } from '../platform/db';
import type { DrawRow } from './queries';

/**
 * RULES N4, the one lock order of every write that sells, holds, releases or voids numbers, taken
 * here and nowhere else:
 *
 *   (the payment row, taken by payments before it calls in) → the reservation row → the draw rows
 *   in id order → the cells in number order (a reservation's held cells: in (draw, number) order)
 *   → the (draw, user) advisory lock → the user's voucher balance of the draw's product
 *   → (after this function: the user's voucher lots, then the user's coupon account).
 *
 * A hold (`hold: true`, RULES R1) takes the draw row FOR SHARE, the (draw, user) lock, then its
 * cells with SKIP LOCKED: it never waits on a cell (one locked by another request is a conflict),
 * so taking the user's lock before the cells cannot deadlock. A refund (vouchers.undoPayment,
 * `lots`) locks every draw it may touch, then each lot's voucher balance and lot, and the cells
 * last (voidSales): behind those draw rows nothing else in them can run.
 *
 * `guard` runs once the draw row is locked (for a hold: and the user's lock), before anything
 * after it: a caller's refusals that need the draw (closed, out of range, too many) are thrown
 * there, before any cell is locked. It answers false to take no further lock.
 */

export interface Cell {
  n: number;
  status: 'available' | 'reserved' | 'sold';
  reservation_id: number | null;
  owner_user_id: number | null;
}

/** A reservation row as locked (every column). */
export interface LockedReservation {
  id: number;
  user_id: number;
  draw_id: number;
  numbers: number[];
  status: string;
  source: string;
  expires_at: Date;
  [column: string]: unknown;
}

export interface SaleLockRequest {
  /** The reservation that is paid, consumed or released: locked first. */
  reservationId?: number | null;
  /** The draws written, locked in id order. Absent: the reservation's draw. */
  drawIds?: number[];
  /** Cells of the (one) draw, locked in number order. */
  numbers?: number[];
  /** The cells a reservation still holds (any draw), locked in (draw, number) order: releasing it. */
  heldBy?: number;
  /** The user whose (draw, user) advisory lock is taken (one draw); with `ifLimited`, only when the draw has a per-user limit (RULES N6). */
  user?: { id: number; ifLimited?: boolean };
  /** Also the user's voucher balance row of the draw's product, when it has one (RULES V5). */
  voucherBalance?: boolean;
  /** A refund's voucher lots (RULES RF2): each lot's voucher balance row, then the lot, in lot id order. */
  lots?: Array<{ id: number; user_id: number; infoproduct_id: number }>;
  /** A hold (RULES R1): draw FOR SHARE, the user's lock, then the cells with SKIP LOCKED. */
  hold?: boolean;
  guard?: (draw: DrawRow, reservation: LockedReservation | undefined) => unknown;
}

export interface SaleLocks {
  reservation?: LockedReservation;
  /** The draw row, when one draw was asked for (undefined when it does not exist). */
  draw?: DrawRow;
  cells: Cell[];
  /** The voucher balance read under its lock; null when not asked for or the draw has no product. */
  balance: number | null;
  /** The refund's lots as locked. */
  lots: Map<number, { remaining: number; revoked_at: Date | null }>;
}

/**
 * Serializes one user's writes in one draw (limit checks are read-then-write): a
 * transaction-scoped advisory lock on (draw, user).
 */
async function lockUserInDraw(trx: Conn, drawId: number, userId: number) {
  await trx.raw('SELECT pg_advisory_xact_lock(?::int, ?::int)', [drawId, userId]);
}

/** Takes the locks of a sale, hold, release or void in the RULES N4 order (see above). */
export async function lockForSale(trx: Conn, o: SaleLockRequest): Promise<SaleLocks> {
  const out: SaleLocks = { cells: [], balance: null, lots: new Map() };
  if (o.reservationId != null) out.reservation = await trx('reservations').where({ id: o.reservationId }).forUpdate().first();
  const drawIds = [...new Set(o.drawIds ?? (out.reservation ? [out.reservation.draw_id] : []))].sort((a, b) => a - b);
  for (const id of drawIds) {
    const q = trx('draws').where({ id }).first();
    const row = (await (o.hold ? q.forShare() : q.forUpdate())) as DrawRow | undefined;
    if (drawIds.length === 1) out.draw = row;
  }
  const draw = out.draw;
  for (const lot of [...(o.lots ?? [])].sort((a, b) => a.id - b.id)) {
    await trx('voucher_balances').where({ user_id: lot.user_id, infoproduct_id: lot.infoproduct_id }).forUpdate().first('balance');
    out.lots.set(lot.id, await trx('voucher_lots').where({ id: lot.id }).forUpdate().first('remaining', 'revoked_at'));
  }
  if (drawIds.length === 1 && !draw) return out;
  const userLock = async () => {
    if (!draw || !o.user || (o.user.ifLimited && !(draw.max_per_user > 0))) return;
    await lockUserInDraw(trx, draw.id, o.user.id);
  };
  if (o.hold) await userLock();
  if (draw && o.guard && (await o.guard(draw, out.reservation)) === false) return out;
  if (draw && o.numbers?.length) {
    const q = trx('draw_numbers')
      .where({ draw_id: draw.id })
      .whereIn(
        'n',
        [...o.numbers].sort((a, b) => a - b),
      )
      .orderBy('n')
      .forUpdate();
    out.cells = await (o.hold ? q.skipLocked() : q).select('n', 'status', 'reservation_id', 'owner_user_id');
  }
  if (o.heldBy != null) {
    out.cells = await trx('draw_numbers')
      .where({ reservation_id: o.heldBy, status: 'reserved' })
      .orderBy(['draw_id', 'n'])
      .forUpdate()
      .select('draw_id', 'n', 'status', 'reservation_id', 'owner_user_id');
  }
  if (!o.hold) await userLock();
  if (draw && o.user && o.voucherBalance && draw.infoproduct_id) {
    const row = await trx('voucher_balances')
      .where({ user_id: o.user.id, infoproduct_id: draw.infoproduct_id })
      .forUpdate()
      .first('balance');
    out.balance = row?.balance ?? 0;
  }
  return out;
}

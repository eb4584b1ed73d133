import type { Conn } from '../platform/db';

/**
 * Row-level helpers of the payments module. Kept free of service imports so that
 * other modules (reservations, vouchers) can use them without a dependency cycle.
 */

/** Statuses of a payment that ended without our seeing it paid: the provider is still asked for a while. */
export const LAPSED_STATUSES = ['expired', 'cancelled', 'rejected'] as const;

/** How long after a payment lapsed we keep asking the provider (RULES P5: at least 24 h). */
export const LATE_CHECK_WINDOW_HOURS = 48;

/**
 * Spacing of the checks of a lapsed payment, growing with the time since it lapsed:
 * [lapsed for less than (minutes), ask at most every (minutes)].
 */
const LATE_CHECK_STEPS: Array<[number, number]> = [
  [10, 1],
  [60, 5],
  [6 * 60, 30],
  [Infinity, 120],
];

/** Delay before the next check of a payment that lapsed `sinceLapseMs` ago. */
export function lateCheckDelayMs(sinceLapseMs: number): number {
  const minutes = sinceLapseMs / 60_000;
  for (const [upTo, every] of LATE_CHECK_STEPS) if (minutes < upTo) return every * 60_000;
  return LATE_CHECK_STEPS[LATE_CHECK_STEPS.length - 1][1] * 60_000;
}

/** The same spacing in SQL, for an atomic claim on `last_checked_at` (alias `p` optional). */
export function lateCheckIntervalSql(col = 'lapsed_at'): string {
  const whens = LATE_CHECK_STEPS.filter(([upTo]) => Number.isFinite(upTo))
    .map(([upTo, every]) => `WHEN now() - ${col} < interval '${upTo} minutes' THEN interval '${every} minutes'`)
    .join(' ');
  return `(CASE ${whens} ELSE interval '${LATE_CHECK_STEPS[LATE_CHECK_STEPS.length - 1][1]} minutes' END)`;
}

/** A lapsed payment still inside its late-check window (SQL condition on the payments row). */
export const IN_LATE_WINDOW_SQL = `status IN ('expired', 'cancelled', 'rejected') AND provider_payment_id IS NOT NULL AND lapsed_at > now() - interval '${LATE_CHECK_WINDOW_HOURS} hours'`;

/**
 * A reservation stopped being payable (its numbers were confirmed with vouchers, or it was
 * released): its pending PIX is cancelled here so it is never shown or reused again, and marked
 * for cancellation at the provider (done by the payments service: status checks, the poll job,
 * reconciliation). An approval that still arrives is applied by the late-approval rule.
 * Run it after the transaction that closed the reservation (no lock on the reservation).
 */
export async function cancelPendingPaymentsOfReservation(conn: Conn, reservationId: number, reason: string): Promise<number[]> {
  const rows: Array<{ id: number }> = await conn('payments')
    .where({ reservation_id: reservationId, status: 'pending' })
    .update({
      status: 'cancelled',
      lapsed_at: conn.fn.now(),
      provider_cancel_pending: conn.raw('provider_payment_id IS NOT NULL'),
      review_reason: reason,
      updated_at: conn.fn.now(),
    })
    .returning('id');
  return rows.map((r) => r.id);
}

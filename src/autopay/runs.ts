import type { Db, Trx } from '../platform/db';
import { releaseReservation } from '../draws/sales';
import { cancelUnsentPayment } from '../payments/records';
import type { AutopayRunView, AutopayRunsPage } from '../shared/api/autopay';
import { RunsQuery } from './schema';

/** autopay's rows, as read by its profiles, charging and the admin list. */
export interface ProfileRow {
  id: number;
  user_id: number;
  active: boolean;
  provider: 'sandbox' | 'mercadopago';
  provider_customer_id: string | null;
  provider_card_id: string | null;
  brand: string | null;
  last4: string | null;
  holder_name: string | null;
  doc_number: string | null;
}

export interface RunRow {
  id: number;
  profile_id: number;
  draw_id: number;
  status: string;
  numbers: number[];
  reservation_id: number | null;
  payment_id: number | null;
  error: string | null;
  hold_until: Date | null;
  attempts: number;
  next_attempt_at: Date | null;
  amount_cents: number | null;
  provider: string | null;
  provider_payment_id: string | null;
  provider_status: string | null;
  provider_response: Record<string, unknown> | null;
}

/** A captive number as written on the board and in messages (00-99). */
export const label = (n: number) => String(n).padStart(2, '0');

/**
 * Releases a run that will not be charged: its held cells go back to the board, its
 * reservation ends, its payment (never charged) is cancelled. In the caller's transaction,
 * with the run row locked.
 */
export async function releaseRun(
  trx: Trx,
  run: RunRow,
  reason: string,
  status: 'released' | 'provider_refused' = 'released',
): Promise<number | null> {
  let drawId: number | null = null;
  if (run.reservation_id) {
    drawId = await releaseReservation(trx, run.reservation_id, 'cancelled');
  }
  if (run.payment_id) {
    await cancelUnsentPayment(trx, run.payment_id, `compra automática: ${reason}`);
  }
  await trx('autopay_runs')
    .where({ id: run.id })
    .update({ status, error: reason, next_attempt_at: null, settled_at: trx.fn.now(), updated_at: trx.fn.now() });
  return drawId;
}

/** The admin console's list of runs (GET /api/admin/autopay/runs), newest draw first. */
export async function listRuns(db: Db, query: unknown): Promise<AutopayRunsPage> {
  const f = RunsQuery.parse(query);
  const qb = db('autopay_runs as r')
    .join('autopay_profiles as p', 'p.id', 'r.profile_id')
    .join('users as u', 'u.id', 'p.user_id')
    .orderBy([
      { column: 'r.draw_id', order: 'desc' },
      { column: 'r.id', order: 'asc' },
    ])
    .limit(f.limit + 1)
    .offset(f.offset)
    .select('r.*', 'p.user_id', 'u.name as user_name', 'u.email as user_email');
  if (f.draw_id) qb.where('r.draw_id', f.draw_id);
  if (f.status) qb.where('r.status', f.status);
  const rows: Array<
    RunRow & {
      user_id: number;
      user_name: string;
      user_email: string;
      skipped_numbers: number[];
      created_at: Date;
      updated_at: Date;
      settled_at: Date | null;
    }
  > = await qb;
  const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);
  const items: AutopayRunView[] = rows.slice(0, f.limit).map((r) => ({
    id: Number(r.id),
    draw_id: Number(r.draw_id),
    profile_id: Number(r.profile_id),
    user_id: Number(r.user_id),
    user_name: r.user_name,
    user_email: r.user_email,
    status: r.status as AutopayRunView['status'],
    numbers: r.numbers ?? [],
    skipped_numbers: r.skipped_numbers ?? [],
    amount_cents: r.amount_cents,
    attempts: r.attempts,
    payment_id: r.payment_id == null ? null : Number(r.payment_id),
    provider: r.provider,
    provider_payment_id: r.provider_payment_id,
    provider_status: r.provider_status,
    error: r.error,
    hold_until: iso(r.hold_until),
    next_attempt_at: iso(r.next_attempt_at),
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
    settled_at: iso(r.settled_at),
  }));
  return { items, hasMore: rows.length > f.limit, limit: f.limit, offset: f.offset };
}

import type { Conn } from '../platform/db';
import { PAID_KINDS } from './schema';

export interface CouponAccountRow {
  user_id: number;
  balance_cents: number;
  debt_cents: number;
  last_paid_payment_at: Date | null;
  last_payment_sync_at: Date | null;
  pushed_at: Date | null;
  pushed_ledger_id: number | null;
  flagged_for_review: boolean;
  review_reason: string | null;
  updated_at: Date;
}

export interface CouponLedgerRow {
  id: number;
  user_id: number;
  kind: string;
  amount_cents: number;
  payment_id: number | null;
  note: string | null;
  actor_user_id: number | null;
  created_at: Date;
}

/** The user's account row, created empty if missing, locked FOR UPDATE (balance math serializes on it). */
export async function lockAccount(trx: Conn, userId: number): Promise<CouponAccountRow> {
  await trx('coupon_accounts').insert({ user_id: userId }).onConflict('user_id').ignore();
  return trx('coupon_accounts').where({ user_id: userId }).forUpdate().first();
}

export function findAccount(conn: Conn, userId: number): Promise<CouponAccountRow | undefined> {
  return conn('coupon_accounts').where({ user_id: userId }).first();
}

/** Latest paid_at among the user's payments that are approved purchases now. */
export async function lastPaidAt(conn: Conn, userId: number): Promise<Date | null> {
  const r = await conn('payments')
    .where({ user_id: userId, status: 'approved' })
    .whereIn('kind', PAID_KINDS)
    .where('amount_cents', '>', 0)
    .max<{ m: Date | null }[]>({ m: 'paid_at' });
  return r[0]?.m ?? null;
}

/** Approved paid payments without a cashback credit (optionally of one user). */
export function paymentsMissingCredit(conn: Conn, o: { userId?: number; limit: number }): Promise<Array<{ id: number; user_id: number }>> {
  const q = conn('payments as p')
    .where('p.status', 'approved')
    .whereIn('p.kind', PAID_KINDS)
    .where('p.amount_cents', '>', 0)
    .whereNotExists(conn('coupon_ledger as l').whereRaw('l.payment_id = p.id').where('l.kind', 'credit').select(conn.raw('1')))
    .orderBy('p.id')
    .limit(o.limit)
    .select('p.id', 'p.user_id');
  if (o.userId) q.where('p.user_id', o.userId);
  return q;
}

/** Refunded or charged-back payments whose credit was never reversed. */
export function paymentsMissingReversal(
  conn: Conn,
  o: { userId?: number; limit: number },
): Promise<Array<{ id: number; user_id: number }>> {
  const q = conn('payments as p')
    .whereIn('p.status', ['refunded', 'charged_back'])
    .whereExists(
      conn('coupon_ledger as l').whereRaw('l.payment_id = p.id').whereIn('l.kind', ['credit', 'late_approval']).select(conn.raw('1')),
    )
    .whereNotExists(conn('coupon_ledger as l').whereRaw('l.payment_id = p.id').where('l.kind', 'reversal').select(conn.raw('1')))
    .orderBy('p.id')
    .limit(o.limit)
    .select('p.id', 'p.user_id');
  if (o.userId) q.where('p.user_id', o.userId);
  return q;
}

/** Accounts with a balance whose validity ended (last paid payment + days < now). */
export function accountsDueForExpiry(conn: Conn, validityDays: number, limit: number): Promise<Array<{ user_id: number }>> {
  return conn('coupon_accounts')
    .where('balance_cents', '>', 0)
    .whereNotNull('last_paid_payment_at')
    .whereRaw(`last_paid_payment_at + make_interval(days => ?) <= now()`, [validityDays])
    .orderBy('user_id')
    .limit(limit)
    .select('user_id');
}

/** Accounts whose latest ledger entry the partner store has not received yet. */
export function accountsToPush(conn: Conn, limit: number, userId?: number): Promise<Array<{ user_id: number; version: number }>> {
  const q = conn('coupon_accounts as a')
    .join(conn('coupon_ledger').groupBy('user_id').select('user_id', conn.raw('max(id) as version')).as('v'), 'v.user_id', 'a.user_id')
    .where((w) => w.whereNull('a.pushed_ledger_id').orWhereRaw('a.pushed_ledger_id < v.version'))
    .orderBy('a.user_id')
    .limit(limit)
    .select('a.user_id', 'v.version');
  if (userId) q.where('a.user_id', userId);
  return q;
}

export function ledgerOf(conn: Conn, userId: number, limit = 500): Promise<CouponLedgerRow[]> {
  return conn('coupon_ledger').where({ user_id: userId }).orderBy('id', 'desc').limit(limit);
}

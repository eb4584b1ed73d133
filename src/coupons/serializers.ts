import type { CouponBalance, CouponEntry } from '../shared/api/account';
import type { CouponAccountRow, CouponLedgerRow } from './queries';
import { iso } from '../shared/iso';


/** Balance validity: the last paid payment + the configured days (DESIGN §6), or null before any. */
export function validUntil(account: Pick<CouponAccountRow, 'last_paid_payment_at'> | undefined, validityDays: number): string | null {
  if (!account?.last_paid_payment_at) return null;
  return new Date(new Date(account.last_paid_payment_at).getTime() + validityDays * 86_400_000).toISOString();
}

export function serializeEntry(r: CouponLedgerRow): CouponEntry {
  return { id: r.id, kind: r.kind, cents: r.amount_cents, payment_id: r.payment_id, reason: r.note, created_at: iso(r.created_at) as string };
}

export function serializeBalance(code: string, account: CouponAccountRow | undefined, ledger: CouponLedgerRow[], validityDays: number): CouponBalance {
  return {
    code,
    cents: account?.balance_cents ?? 0,
    valid_until: validUntil(account, validityDays),
    last_payment_sync_at: iso(account?.last_payment_sync_at),
    entries: ledger.map(serializeEntry),
  };
}

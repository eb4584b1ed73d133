import type { CouponBalance, CouponEntry } from '../shared/api/account';
import type { CouponAccountRow, CouponLedgerRow } from './queries';
import { iso } from '../shared/iso';

/** Balance validity: the last paid payment + the configured days (RULES C3), or null before any. */
export function validUntil(account: Pick<CouponAccountRow, 'last_paid_payment_at'> | undefined, validityDays: number): string | null {
  if (!account?.last_paid_payment_at) return null;
  return new Date(new Date(account.last_paid_payment_at).getTime() + validityDays * 86_400_000).toISOString();
}

/**
 * The balance the rules let the user spend now: the stored balance, or 0 once its validity ended
 * (the expiry entry may not be written yet). The one rule behind /conta's coupon card (expireIfDue
 * writes exactly this), the admin's customers with active balance and the CLI.
 */
export function liveBalanceCents(
  account: Pick<CouponAccountRow, 'balance_cents' | 'last_paid_payment_at'> | undefined,
  validityDays: number,
  now = Date.now(),
): number {
  if (!account || account.balance_cents <= 0) return 0;
  const until = validUntil(account, validityDays);
  return until && new Date(until).getTime() <= now ? 0 : account.balance_cents;
}

/** Whole days left before the balance expires (0 on its last day), or null when it has no end yet. */
export function daysToExpire(
  account: Pick<CouponAccountRow, 'last_paid_payment_at'> | undefined,
  validityDays: number,
  now = Date.now(),
): number | null {
  const until = validUntil(account, validityDays);
  if (!until) return null;
  return Math.max(0, Math.ceil((new Date(until).getTime() - now) / 86_400_000));
}

export function serializeEntry(r: CouponLedgerRow): CouponEntry {
  return {
    id: r.id,
    kind: r.kind,
    cents: r.amount_cents,
    payment_id: r.payment_id,
    reason: r.note,
    created_at: iso(r.created_at) as string,
  };
}

export function serializeBalance(
  code: string,
  account: CouponAccountRow | undefined,
  ledger: CouponLedgerRow[],
  validityDays: number,
): CouponBalance {
  return {
    code,
    cents: account?.balance_cents ?? 0,
    valid_until: validUntil(account, validityDays),
    last_payment_sync_at: iso(account?.last_payment_sync_at),
    updated_at: iso(account?.updated_at),
    entries: ledger.map(serializeEntry),
  };
}

import { randomInt } from 'node:crypto';
import { z } from 'zod';

/** Crockford base32 (no I, L, O, U): unambiguous when read aloud or typed. */
export const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const COUPON_CODE_RE = /^CV-[0-9A-HJKMNP-TV-Z]{10}$/;

/** A fresh random code: `CV-` + 10 Crockford characters (50 bits from the CSPRNG). */
export function newCouponCode(): string {
  let s = 'CV-';
  for (let i = 0; i < 10; i++) s += CROCKFORD[randomInt(32)];
  return s;
}

/** Ledger entry kinds (coupon_ledger.kind). */
export type CouponLedgerKind = 'credit' | 'debit' | 'expiry' | 'adjustment' | 'late_approval' | 'reversal';

/** Payment kinds whose approval is a paid purchase (admin assignments carry no money). */
export const PAID_KINDS = ['infoproduct', 'reservation', 'autopay'] as const;

/** Payload of the coupon.sync job: one user (after a sync call) or everyone (hourly). */
export const CouponSyncJob = z.object({ userId: z.number().int().positive().optional() });

/** POST /api/coupons/sync takes no input; an object body (even empty) is accepted, anything else refused. */
export const CouponSyncCommand = z.union([z.object({}).passthrough(), z.undefined(), z.null()], {
  error: 'Corpo inválido: envie um objeto JSON ou nada.',
});

export function cashbackCents(amountCents: number, percent: number): number {
  return Math.floor((amountCents * percent) / 100);
}

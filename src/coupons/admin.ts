import { z } from 'zod';
import { PageLimit, PageOffset } from '../platform/validation';
import type { Conn, Db, Trx } from '../platform/db';
import { errors } from '../platform/errors';
import { readAppConfig } from '../platform/app-config';
import type { ActiveClient } from '../shared/api/admin-users';
import { iso } from '../shared/iso';
import * as q from './queries';
import { PAID_KINDS, newCouponCode } from './schema';
import { expireIfDue } from './service';
import { daysToExpire, liveBalanceCents, validUntil } from './serializers';

/**
 * The coupon rules as the admin and the operator CLI use them (RULES C1, C5): a balance edit is an
 * 'adjustment' entry of the append-only ledger with its reason and author, never an overwrite,
 * and every balance shown is `liveBalanceCents`, the rule of the customer area.
 */

const brl = (cents: number) => `R$ ${(cents / 100).toFixed(2).replace('.', ',')}`;

export const AdjustmentReason = z
  .string({ error: 'Informe o motivo do ajuste de saldo.' })
  .trim()
  .min(3, 'Informe o motivo do ajuste de saldo (pelo menos 3 caracteres).')
  .max(500, 'O motivo pode ter no máximo 500 caracteres.');

export const AdjustmentCents = z
  .number({ error: 'Informe o valor do ajuste em centavos.' })
  .int('O valor do ajuste deve ser um número inteiro de centavos.')
  .min(-100_000_000, 'O valor do ajuste é alto demais.')
  .max(100_000_000, 'O valor do ajuste é alto demais.')
  .refine((v) => v !== 0, 'O ajuste não pode ser zero.');

export interface Adjustment {
  before_cents: number;
  after_cents: number;
  cents: number;
  entry_id: number;
}

/**
 * In the caller's transaction: locks the user's coupon account, writes the expiry a past-due
 * balance owes first (as /conta does), then appends the adjustment. The balance never goes below
 * zero (409). The caller writes the audit entry.
 */
export async function adjustCouponBalance(
  trx: Trx,
  a: { userId: number; cents: number; reason: string; actorUserId: number | null },
): Promise<Adjustment> {
  const cfg = await readAppConfig(trx);
  // A balance needs its code to be spent at the partner store: an account without one gets it now.
  await trx('users').where({ id: a.userId }).whereNull('coupon_code').update({ coupon_code: newCouponCode() });
  const account = await q.lockAccount(trx, a.userId);
  await expireIfDue(trx, account, cfg.coupon_validity_days);
  const before = account.balance_cents;
  const after = before + a.cents;
  if (after < 0)
    throw errors.conflict('coupon_negative', `O saldo não pode ficar negativo: o saldo atual é ${brl(before)}.`, { balance_cents: before });
  const [entry] = await trx('coupon_ledger')
    .insert({ user_id: a.userId, kind: 'adjustment', amount_cents: a.cents, note: a.reason, actor_user_id: a.actorUserId })
    .returning('id');
  await trx('coupon_accounts').where({ user_id: a.userId }).update({ balance_cents: after, updated_at: trx.fn.now() });
  return { before_cents: before, after_cents: after, cents: a.cents, entry_id: Number(entry.id) };
}

/** Live balances (and validity) of some users, by the customer area's rule. */
export async function balancesOf(
  conn: Conn,
  userIds: number[],
): Promise<Map<number, { cents: number; valid_until: string | null; days_to_expire: number | null }>> {
  const out = new Map<number, { cents: number; valid_until: string | null; days_to_expire: number | null }>();
  if (!userIds.length) return out;
  const cfg = await readAppConfig(conn);
  const rows: q.CouponAccountRow[] = await conn('coupon_accounts').whereIn('user_id', userIds);
  for (const r of rows) {
    const cents = liveBalanceCents(r, cfg.coupon_validity_days);
    out.set(Number(r.user_id), {
      cents,
      valid_until: cents > 0 ? validUntil(r, cfg.coupon_validity_days) : null,
      days_to_expire: cents > 0 ? daysToExpire(r, cfg.coupon_validity_days) : null,
    });
  }
  return out;
}

export const ActiveClientsQuery = z.object({
  limit: PageLimit(500, 500),
  offset: PageOffset(),
});

/** One row of the active-clients query below. */
type ActiveClientRow = Pick<q.CouponAccountRow, 'balance_cents' | 'last_paid_payment_at'> & {
  id: number;
  name: string;
  email: string;
  created_at: Date;
  coupon_code: string | null;
  purchases_count: number;
  last_buy: Date | null;
  wins: number;
};

/**
 * 'Clientes com saldo ativo' (GET /api/admin/clients/active): every customer whose live balance is
 * positive, biggest balance first, with purchases, last purchase, wins and days to expiry.
 */
export async function activeClients(
  db: Db,
  query: unknown,
): Promise<{ items: ActiveClient[]; hasMore: boolean; limit: number; offset: number }> {
  const f = ActiveClientsQuery.parse(query);
  const cfg = await readAppConfig(db);
  const rows = await db('coupon_accounts as a')
    .join('users as u', 'u.id', 'a.user_id')
    .where('a.balance_cents', '>', 0)
    .whereNull('u.anonymized_at')
    // The SQL twin of liveBalanceCents (checked again below with the function itself).
    .where((w) =>
      w
        .whereNull('a.last_paid_payment_at')
        .orWhereRaw('a.last_paid_payment_at + make_interval(days => ?) > now()', [cfg.coupon_validity_days]),
    )
    .orderBy([
      { column: 'a.balance_cents', order: 'desc' },
      { column: 'u.id', order: 'asc' },
    ])
    .limit(f.limit + 1)
    .offset(f.offset)
    .select(
      'u.id',
      'u.name',
      'u.email',
      'u.created_at',
      'u.coupon_code',
      'a.balance_cents',
      'a.last_paid_payment_at',
      db.raw(
        `(SELECT count(*)::int FROM payments p WHERE p.user_id = u.id AND p.status = 'approved' AND p.kind = ANY(?) AND p.amount_cents > 0) AS purchases_count`,
        [PAID_KINDS as unknown as string[]],
      ),
      db.raw(
        `(SELECT max(p.paid_at) FROM payments p WHERE p.user_id = u.id AND p.status = 'approved' AND p.kind = ANY(?) AND p.amount_cents > 0) AS last_buy`,
        [PAID_KINDS as unknown as string[]],
      ),
      db.raw(`(SELECT count(*)::int FROM draws d WHERE d.winner_user_id = u.id) AS wins`),
    );
  const hasMore = rows.length > f.limit;
  const items: ActiveClient[] = rows
    .slice(0, f.limit)
    .map((r: ActiveClientRow) => {
      const cents = liveBalanceCents(r, cfg.coupon_validity_days);
      return {
        user_id: Number(r.id),
        name: r.name,
        email: r.email,
        created_at: iso(r.created_at) as string,
        purchases_count: Number(r.purchases_count),
        coupon_value_cents: cents,
        total_brl: cents / 100,
        last_buy: iso(r.last_buy),
        wins: Number(r.wins),
        coupon: r.coupon_code,
        valid_until: validUntil(r, cfg.coupon_validity_days),
        days_to_expire: daysToExpire(r, cfg.coupon_validity_days),
      };
    })
    .filter((c) => c.coupon_value_cents > 0);
  return { items, hasMore, limit: f.limit, offset: f.offset };
}

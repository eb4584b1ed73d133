import type { Db, Conn, Trx } from '../platform/db';
import { isUniqueViolation } from '../platform/db';
import type { Logger } from '../platform/logger';
import type { JobQueue } from '../platform/queue';
import { readAppConfig } from '../platform/app-config';
import { countOf } from '../shared/plural';
import type { CouponBalance, CouponSync } from '../shared/api/account';
import type { CouponPushAdapter } from './adapters';
import * as q from './queries';
import { CouponSyncCommand, PAID_KINDS, cashbackCents, newCouponCode } from './schema';
import { liveBalanceCents, serializeBalance, validUntil } from './serializers';

/** The payment fields the ledger rules read. */
export interface PaymentForCoupon {
  id: number;
  user_id: number;
  kind: string;
  status: string;
  amount_cents: number;
}

const brl = (cents: number) => `R$ ${(cents / 100).toFixed(2).replace('.', ',')}`;

/**
 * Writes the expiry entry when the balance outlived its validity (last paid payment +
 * days). The caller holds the account lock. Returns the cents expired.
 */
export async function expireIfDue(trx: Conn, account: q.CouponAccountRow, validityDays: number): Promise<number> {
  if (account.balance_cents <= 0 || liveBalanceCents(account, validityDays) > 0) return 0;
  const until = validUntil(account, validityDays) as string;
  await trx('coupon_ledger').insert({
    user_id: account.user_id,
    kind: 'expiry',
    amount_cents: -account.balance_cents,
    note: `saldo expirado: validade de ${countOf(validityDays, 'dia', 'dias')} após o último pagamento (até ${until.slice(0, 10)})`,
  });
  await trx('coupon_accounts').where({ user_id: account.user_id }).update({ balance_cents: 0, updated_at: trx.fn.now() });
  const expired = account.balance_cents;
  account.balance_cents = 0;
  return expired;
}

/**
 * Credits the cashback of an approved paid payment, exactly once (the partial unique
 * index on (payment_id, kind) admits one 'credit' per payment). Runs in the caller's
 * transaction, which holds the payment row lock (fulfilment, sync): lock order is
 * payment → coupon account everywhere. Returns the cents credited now (0 if already done).
 */
export async function creditPaymentCashback(trx: Trx, p: PaymentForCoupon): Promise<number> {
  if (p.status !== 'approved' || !(PAID_KINDS as readonly string[]).includes(p.kind) || p.amount_cents <= 0) return 0;
  const cfg = await readAppConfig(trx);
  const cents = cashbackCents(p.amount_cents, cfg.coupon_cashback_percent);
  if (cents <= 0) return 0;
  const account = await q.lockAccount(trx, p.user_id);
  // An old balance past its validity expires before this payment renews the validity.
  await expireIfDue(trx, account, cfg.coupon_validity_days);
  const inserted = await trx('coupon_ledger')
    .insert({
      user_id: p.user_id,
      kind: 'credit',
      amount_cents: cents,
      payment_id: p.id,
      note: `${cfg.coupon_cashback_percent}% do pagamento #${p.id} (${brl(p.amount_cents)})`,
    })
    .onConflict(trx.raw(`(payment_id, kind) WHERE kind IN ('credit', 'late_approval')`))
    .ignore()
    .returning('id');
  if (!inserted.length) return 0;
  await trx('coupon_accounts')
    .where({ user_id: p.user_id })
    .update({
      balance_cents: trx.raw('balance_cents + ?', [cents]),
      last_paid_payment_at: await q.lastPaidAt(trx, p.user_id),
      updated_at: trx.fn.now(),
    });
  return cents;
}

/**
 * Coupon credit of a late approval (payments: the numbers a late-approved payment could not get),
 * once per payment (coupon_ledger_one_credit_per_payment), inside the caller's transaction.
 */
export async function creditLateApproval(trx: Trx, c: { userId: number; paymentId: number; cents: number; note: string }) {
  if (c.cents <= 0) return;
  const ins = await trx('coupon_ledger')
    .insert({ user_id: c.userId, kind: 'late_approval', amount_cents: c.cents, payment_id: c.paymentId, note: c.note })
    .onConflict(trx.raw(`(payment_id, kind) WHERE kind IN ('credit', 'late_approval')`))
    .ignore()
    .returning('id');
  if (!ins.length) return;
  await trx('coupon_accounts')
    .insert({ user_id: c.userId, balance_cents: c.cents })
    .onConflict('user_id')
    .merge({ balance_cents: trx.raw('coupon_accounts.balance_cents + excluded.balance_cents'), updated_at: trx.fn.now() });
}

/**
 * A refunded or charged-back payment gives back what it credited (cashback and
 * late-approval credit), once. The balance never goes below zero: whatever was
 * already spent stays as a debt on the account, flagged for review.
 */
export async function reversePaymentCashback(trx: Trx, p: PaymentForCoupon): Promise<{ reversed: number; debt: number } | null> {
  if (p.status !== 'refunded' && p.status !== 'charged_back') return null;
  const credited: Array<{ amount_cents: number }> = await trx('coupon_ledger')
    .where({ payment_id: p.id })
    .whereIn('kind', ['credit', 'late_approval'])
    .select('amount_cents');
  const total = credited.reduce((s, r) => s + r.amount_cents, 0);
  if (total <= 0) return null;
  const account = await q.lockAccount(trx, p.user_id);
  const take = Math.min(account.balance_cents, total);
  const debt = total - take;
  const what = p.status === 'refunded' ? 'estorno' : 'chargeback';
  const inserted = await trx('coupon_ledger')
    .insert({
      user_id: p.user_id,
      kind: 'reversal',
      amount_cents: -take,
      payment_id: p.id,
      note:
        debt > 0 ? `${what} do pagamento #${p.id}: ${brl(debt)} já usados ficam como débito para revisão` : `${what} do pagamento #${p.id}`,
    })
    .onConflict(trx.raw(`(payment_id) WHERE kind = 'reversal'`))
    .ignore()
    .returning('id');
  if (!inserted.length) return null;
  await trx('coupon_accounts')
    .where({ user_id: p.user_id })
    .update({
      balance_cents: trx.raw('balance_cents - ?', [take]),
      debt_cents: trx.raw('debt_cents + ?', [debt]),
      ...(debt > 0 ? { flagged_for_review: true, review_reason: `débito de ${brl(debt)} após ${what} do pagamento #${p.id}` } : {}),
      last_paid_payment_at: await q.lastPaidAt(trx, p.user_id),
      updated_at: trx.fn.now(),
    });
  return { reversed: take, debt };
}

export interface CouponRunSummary {
  credited: number;
  reversed: number;
  expired: number;
  pushed: number;
  push_failed: number;
}

export interface CouponsService {
  /** GET /api/coupons/mine (writes a due expiry first: never a silent zero). */
  mine(userId: number): Promise<CouponBalance>;
  /** POST /api/coupons/sync: credits what the ledger lacks for this user; idempotent. */
  sync(userId: number, input?: unknown): Promise<CouponSync>;
  /** The coupon.sync job: one user, or everyone (hourly). */
  runJob(data: { userId?: number }): Promise<CouponRunSummary>;
  /** The user's coupon code, created on first use (random, unique). */
  ensureCode(userId: number): Promise<string>;
  /** Sends the user's balance to the partner store if its ledger changed since the last push. */
  push(userId: number): Promise<boolean>;
}

export function createCouponsService(deps: { db: Db; logger: Logger; queue: JobQueue; adapter: CouponPushAdapter }): CouponsService {
  const { db, logger, adapter } = deps;
  const BATCH = 1000;

  /** Payment lock first (FOR SHARE: waits for an approval or refund in flight), then the account. */
  async function creditOne(paymentId: number): Promise<number> {
    return db.transaction(async (trx) => {
      const p: PaymentForCoupon | undefined = await trx('payments')
        .where({ id: paymentId })
        .forShare()
        .first('id', 'user_id', 'kind', 'status', 'amount_cents');
      return p ? creditPaymentCashback(trx, p) : 0;
    });
  }

  async function reverseOne(paymentId: number): Promise<number> {
    return db.transaction(async (trx) => {
      const p: PaymentForCoupon | undefined = await trx('payments')
        .where({ id: paymentId })
        .forShare()
        .first('id', 'user_id', 'kind', 'status', 'amount_cents');
      return p ? ((await reversePaymentCashback(trx, p))?.reversed ?? 0) : 0;
    });
  }

  async function expireOne(userId: number, validityDays: number): Promise<number> {
    return db.transaction(async (trx) => {
      const account = await q.lockAccount(trx, userId);
      return expireIfDue(trx, account, validityDays);
    });
  }

  /** Credits, reversals and expiry for one user or (userId undefined) everyone. */
  async function settle(userId?: number) {
    let credited = 0;
    let reversed = 0;
    let expired = 0;
    for (const p of await q.paymentsMissingCredit(db, { userId, limit: BATCH })) credited += await creditOne(p.id);
    for (const p of await q.paymentsMissingReversal(db, { userId, limit: BATCH })) reversed += await reverseOne(p.id);
    const cfg = await readAppConfig(db);
    const due = userId ? [{ user_id: userId }] : await q.accountsDueForExpiry(db, cfg.coupon_validity_days, BATCH);
    for (const a of due) expired += await expireOne(a.user_id, cfg.coupon_validity_days);
    return { credited, reversed, expired };
  }

  const service: CouponsService = {
    async ensureCode(userId) {
      for (let i = 0; i < 5; i++) {
        const u = await db('users').where({ id: userId }).first('coupon_code');
        if (!u) throw new Error(`user ${userId} not found`);
        if (u.coupon_code) return u.coupon_code;
        try {
          await db('users').where({ id: userId }).whereNull('coupon_code').update({ coupon_code: newCouponCode() });
        } catch (e) {
          // 50 random bits: a collision is astronomically rare, but then simply draw again.
          if (!isUniqueViolation(e, 'users_coupon_code_unique')) throw e;
        }
      }
      throw new Error(`could not assign a coupon code to user ${userId}`);
    },

    async mine(userId) {
      const code = await service.ensureCode(userId);
      const cfg = await readAppConfig(db);
      const account = await db.transaction(async (trx) => {
        const a = await q.lockAccount(trx, userId);
        await expireIfDue(trx, a, cfg.coupon_validity_days);
        return a;
      });
      const ledger = await q.ledgerOf(db, userId);
      return serializeBalance(code, account, ledger, cfg.coupon_validity_days);
    },

    async sync(userId, input) {
      CouponSyncCommand.parse(input);
      await service.ensureCode(userId);
      const r = await settle(userId);
      const [row] = await db('coupon_accounts')
        .insert({ user_id: userId, last_payment_sync_at: db.fn.now() })
        .onConflict('user_id')
        .merge({ last_payment_sync_at: db.fn.now() })
        .returning('last_payment_sync_at');
      if (adapter.name !== 'none' && (await q.accountsToPush(db, 1, userId)).length) {
        await deps.queue
          .enqueueUnique('coupon.sync', { userId }, `coupon-sync-${userId}`)
          .catch((e) => logger.warn({ userId, err: (e as Error).message }, 'could not enqueue the coupon push; the hourly run will'));
      }
      if (r.credited || r.reversed || r.expired) logger.info({ userId, ...r }, 'coupon ledger synced');
      return { add_cents: r.credited, last_payment_sync_at: new Date(row.last_payment_sync_at).toISOString() };
    },

    async push(userId) {
      if (adapter.name === 'none') return false;
      const cfg = await readAppConfig(db);
      const code = await service.ensureCode(userId);
      // Balance and version read together, under the account lock, so the key names this balance.
      const snap = await db.transaction(async (trx) => {
        const a = await trx('coupon_accounts').where({ user_id: userId }).forShare().first();
        const v = await trx('coupon_ledger').where({ user_id: userId }).max<{ m: number | null }[]>({ m: 'id' });
        return { a: a as q.CouponAccountRow | undefined, version: v[0]?.m ?? null };
      });
      if (!snap.a || snap.version == null) return false;
      if (snap.a.pushed_ledger_id != null && snap.a.pushed_ledger_id >= snap.version) return false;
      await adapter.push(
        { code, cents: snap.a.balance_cents, valid_until: validUntil(snap.a, cfg.coupon_validity_days), user_id: userId },
        `coupon-${userId}-${snap.version}`,
      );
      await db('coupon_accounts')
        .where({ user_id: userId })
        .where((w) => w.whereNull('pushed_ledger_id').orWhere('pushed_ledger_id', '<', snap.version as number))
        .update({ pushed_ledger_id: snap.version, pushed_at: db.fn.now() });
      return true;
    },

    async runJob(data) {
      const r = await settle(data.userId);
      if (!data.userId) {
        // Every account gets its code, not only those who opened the customer area.
        const missing: Array<{ id: number }> = await db('users').whereNull('coupon_code').orderBy('id').limit(BATCH).select('id');
        for (const u of missing) await service.ensureCode(u.id);
      }
      let pushed = 0;
      let failed = 0;
      if (adapter.name !== 'none') {
        for (const a of await q.accountsToPush(db, BATCH, data.userId)) {
          try {
            if (await service.push(a.user_id)) pushed++;
          } catch (e) {
            failed++;
            logger.warn({ userId: a.user_id, err: (e as Error).message }, 'coupon push gave up for now; the next run retries');
          }
        }
      }
      const summary = { ...r, pushed, push_failed: failed };
      logger.info({ ...summary, userId: data.userId }, 'coupon.sync done');
      return summary;
    },
  };
  return service;
}

import { errors } from '../platform/errors';
import { audit } from '../platform/audit';
import { fulfilPayment, type PaymentRow } from './fulfilment';
import type { ProviderPayment } from './providers/types';
import {
  IN_LATE_WINDOW_SQL,
  LAPSED_STATUSES,
  LATE_CHECK_WINDOW_HOURS,
  cancelPendingPaymentsOfReservation,
  lateCheckDelayMs,
  lateCheckIntervalSql,
} from './queries';
import type { PaymentsDeps } from './deps';
import { RECHECKED_STATUSES, recheckDelayMs } from './state';

/** Poll delays of a pending payment: quick at first, then every minute, until it expires. */
export function pollDelayMs(attempt: number): number {
  return Math.min(60_000, 5_000 * 2 ** Math.min(attempt, 4));
}

/** What one re-check run did (RULES P11). */
export interface RecheckOutcome {
  /** Payments the provider answered about. */
  checked: number;
  /** Those whose status or refunded amount changed. */
  changed: Array<{ id: number; from: string; to: string; refunded_cents: number }>;
  /** Those the provider could not be asked about (asked again on the next run). */
  failed: number;
}

/** What one polling pass found and when the next one is due. */
export interface PollOutcome {
  status: string;
  /** Passes made so far, this one included (kept in the job's data between passes). */
  attempt: number;
  /** When to check again (epoch ms), or null: polling is over. */
  retryAt: number | null;
}

export interface RefreshOptions {
  /** Skip the per-payment throttle (the poll job, which keeps its own pace). */
  force?: boolean;
  /** Ask even about a payment that lapsed longer ago than the late-check window (operators). */
  anyAge?: boolean;
}

const isLapsed = (s: string) => (LAPSED_STATUSES as readonly string[]).includes(s);
const WINDOW_MS = LATE_CHECK_WINDOW_HOURS * 3600_000;

/**
 * Asking the provider: the status call, confirm, the poll job, reconciliation and the operator's
 * forced check all go through refresh(), which claims the check atomically (throttle) and hands
 * the answer to the one transition function.
 */
export function createChecks(deps: PaymentsDeps, apply: (paymentId: number, remote: ProviderPayment) => Promise<PaymentRow>) {
  const { db, provider } = deps;

  /** Cancels at the provider a charge we already cancelled on our side; the flag stays for a retry when unreachable. */
  async function cancelAtProvider(p: PaymentRow) {
    try {
      const cancelled = provider.cancel ? await provider.cancel(p.provider_payment_id as string) : false;
      await db('payments').where({ id: p.id }).update({ provider_cancel_pending: false });
      deps.logger.info({ paymentId: p.id, cancelled }, 'charge of a closed reservation cancelled at the provider');
    } catch (e) {
      deps.logger.warn({ paymentId: p.id, err: (e as Error).message }, 'could not cancel the charge at the provider; will retry');
    }
  }

  /**
   * Checks of this process still running, by payment. A caller that finds one waits for its
   * answer instead of reading the row before that check has applied what the provider said (a
   * confirm arriving while another request of the same buyer asks would otherwise answer "not
   * approved" for a payment the bank has approved). Across processes the row's throttle is the
   * guard; there the loser reads the last stored state, and the client asks again.
   */
  const inflight = new Map<number, Promise<PaymentRow>>();

  const checks = {
    refresh(paymentId: number, opts: RefreshOptions = {}): Promise<PaymentRow> {
      const running = inflight.get(paymentId);
      if (running && !opts.force && !opts.anyAge) return running;
      const check = checks.check(paymentId, opts).finally(() => {
        if (inflight.get(paymentId) === check) inflight.delete(paymentId);
      });
      inflight.set(paymentId, check);
      return check;
    },

    /** One check: claims it (throttle), asks the provider, applies the answer. Callers use refresh(). */
    async check(paymentId: number, opts: RefreshOptions): Promise<PaymentRow> {
      // Claim the check atomically: concurrent callers ask the provider at most every 3 s about a
      // pending payment, and with a growing spacing about one that lapsed (for 48 h after it did).
      const claimed: PaymentRow[] = await db('payments')
        .where({ id: paymentId })
        .whereNotNull('provider_payment_id')
        .where((w) => {
          w.where((q) => {
            q.where('status', 'pending');
            if (!opts.force)
              q.where((t) => t.whereNull('last_checked_at').orWhere('last_checked_at', '<', db.raw(`now() - interval '3 seconds'`)));
          });
          w.orWhere((q) => {
            q.whereIn('status', LAPSED_STATUSES as unknown as string[]);
            // A charge still to be cancelled at the provider is handled whatever its age (every 3 s at most).
            if (!opts.anyAge) {
              q.where((c) =>
                c
                  .where('provider_cancel_pending', true)
                  .orWhere('lapsed_at', '>', db.raw(`now() - interval '${LATE_CHECK_WINDOW_HOURS} hours'`)),
              );
            }
            if (!opts.force) {
              q.where((t) =>
                t
                  .whereNull('last_checked_at')
                  .orWhere(
                    'last_checked_at',
                    '<',
                    db.raw(`now() - CASE WHEN provider_cancel_pending THEN interval '3 seconds' ELSE ${lateCheckIntervalSql()} END`),
                  ),
              );
            }
          });
        })
        .update({ last_checked_at: db.fn.now() })
        .returning('*');
      if (!claimed.length) return db('payments').where({ id: paymentId }).first();
      const p = claimed[0];
      if (p.provider_cancel_pending) await cancelAtProvider(p);
      let remote: ProviderPayment | null;
      try {
        remote = await provider.fetch(p.provider_payment_id as string);
      } catch (e) {
        deps.logger.warn({ paymentId, err: (e as Error).message }, 'provider status check failed');
        return p;
      }
      if (!remote) {
        // The provider does not know the charge: once our expiry has passed, stop waiting.
        if (p.status === 'pending' && p.expires_at && new Date(p.expires_at).getTime() <= Date.now()) {
          const [row] = await db('payments')
            .where({ id: paymentId, status: 'pending' })
            .update({
              status: 'expired',
              lapsed_at: db.fn.now(),
              review_reason: 'cobrança desconhecida do provedor',
              updated_at: db.fn.now(),
            })
            .returning('*');
          return row ?? db('payments').where({ id: paymentId }).first();
        }
        return p;
      }
      return apply(paymentId, remote);
    },

    /**
     * One pass of the payment.poll job: checks, then says when to come back (`retryAt`, epoch ms)
     * while the payment is pending or lapsed recently; null when polling is over. `attempt` is the
     * number of passes already made; the job handler keeps it in the job's data and re-delays the
     * job itself (the service knows nothing of the queue).
     */
    async pollPass(paymentId: number, attempt = 0): Promise<PollOutcome> {
      const p = await checks.refresh(paymentId, { force: true });
      if (!p) return { status: 'missing', attempt, retryAt: null };
      const next = attempt + 1;
      let delay: number | null = null;
      if (p.status === 'pending') delay = pollDelayMs(next);
      else if (isLapsed(p.status) && p.provider_payment_id && p.lapsed_at) {
        const since = Date.now() - new Date(p.lapsed_at).getTime();
        if (since < WINDOW_MS) delay = Math.min(lateCheckDelayMs(since), WINDOW_MS - since + 1_000);
      }
      return { status: p.status, attempt: next, retryAt: delay == null ? null : Date.now() + delay };
    },

    /** One check now (tests, CLI): the payment's status after it. */
    async poll(paymentId: number): Promise<string> {
      return (await checks.pollPass(paymentId)).status;
    },

    async schedulePoll(paymentId: number, delayMs = 5_000): Promise<void> {
      await deps.queue
        .enqueueUnique('payment.poll', { paymentId }, `payment-poll-${paymentId}`, {
          delay: delayMs,
          attempts: 10,
          backoff: { type: 'exponential', delay: 5_000 },
        })
        .catch((e) =>
          deps.logger.warn({ paymentId, err: (e as Error).message }, 'could not schedule payment polling; reconciliation will'),
        );
    },

    /**
     * Operators (`cotaverde payments approve`): with the sandbox, marks the charge paid at the
     * "bank"; with any provider, asks it now whatever the payment's status or age and applies the
     * answer (a late approval included).
     */
    async approve(
      paymentId: number,
      actor: { userId?: number | null; via: 'cli' | 'admin' },
    ): Promise<{ payment: PaymentRow; approvedAtBank: boolean }> {
      const p: PaymentRow | undefined = await db('payments').where({ id: paymentId }).first();
      if (!p) throw errors.notFound('payment_not_found', 'Pagamento não encontrado.');
      if (!p.provider_payment_id || p.provider === 'admin')
        throw errors.conflict('payment_not_at_provider', 'Este pagamento não tem cobrança no provedor.');
      if (p.provider !== provider.name)
        throw errors.conflict('payment_other_provider', `Este pagamento é do provedor ${p.provider}, que não está ativo.`);
      let approvedAtBank = false;
      if (provider.name === 'sandbox' && deps.sandbox) approvedAtBank = await deps.sandbox.approve(p.provider_payment_id);
      await audit(db, {
        actorUserId: actor.userId ?? null,
        actor: actor.via,
        action: approvedAtBank ? 'payment.sandbox_approved' : 'payment.checked',
        entity: 'payment',
        entityId: paymentId,
        data: { status_before: p.status },
      });
      const payment = await checks.refresh(paymentId, { force: true, anyAge: true });
      return { payment, approvedAtBank };
    },

    /**
     * RULES P11: asks the provider again about payments whose money it has or holds (approved,
     * authorized, in mediation) and applies what changed (refund, chargeback, dispute, partial
     * refund) through the one transition function. Without options: the ones due on their decaying
     * schedule (claimed, so two workers never ask twice). `id`: that payment now; `sinceDays`:
     * every one approved in that many days, due or not.
     */
    async recheck(o: { id?: number; sinceDays?: number; limit?: number } = {}): Promise<RecheckOutcome> {
      const limit = o.limit ?? 500;
      const base = () =>
        db('payments')
          .whereIn('status', RECHECKED_STATUSES as unknown as string[])
          .where({ provider: provider.name })
          .whereNotNull('provider_payment_id');
      let ids: number[];
      if (o.id != null) ids = (await base().where({ id: o.id }).pluck('id')) as number[];
      else if (o.sinceDays != null)
        ids = (await base()
          .where('paid_at', '>', db.raw(`now() - make_interval(days => ?)`, [o.sinceDays]))
          .orderBy('id')
          .limit(5000)
          .pluck('id')) as number[];
      else {
        // Claim the due ones (pushed 15 minutes ahead) so a concurrent run skips them.
        const rows: Array<{ id: number }> = await db
          .raw(
            `UPDATE payments SET recheck_at = now() + interval '15 minutes'
            WHERE id IN (SELECT id FROM payments WHERE recheck_at <= now() AND status = ANY(?) AND provider = ? AND provider_payment_id IS NOT NULL
                         ORDER BY recheck_at LIMIT ? FOR UPDATE SKIP LOCKED)
            RETURNING id`,
            [RECHECKED_STATUSES as unknown as string[], provider.name, limit],
          )
          .then((r: { rows: Array<{ id: number }> }) => r.rows);
        ids = rows.map((r) => r.id).sort((a, b) => a - b);
      }
      const out: RecheckOutcome = { checked: 0, changed: [], failed: 0 };
      for (const id of ids) {
        const before: PaymentRow = await db('payments').where({ id }).first();
        let remote: ProviderPayment | null;
        try {
          remote = await provider.fetch(before.provider_payment_id as string);
        } catch (e) {
          out.failed++;
          deps.logger.warn({ paymentId: id, err: (e as Error).message }, 'payment re-check: provider unreachable; next run asks again');
          continue;
        }
        out.checked++;
        const after = remote ? await apply(id, remote) : before;
        // The next time: by the status and age after the answer, or never once it is over.
        const next = (RECHECKED_STATUSES as readonly string[]).includes(after.status)
          ? recheckDelayMs(Date.now() - new Date(after.paid_at ?? after.created_at).getTime(), after.status)
          : null;
        await db('payments')
          .where({ id })
          .update({ recheck_at: next == null ? null : new Date(Date.now() + next) });
        if (after.status !== before.status || (after.refunded_cents ?? 0) !== (before.refunded_cents ?? 0)) {
          out.changed.push({ id, from: before.status, to: after.status, refunded_cents: after.refunded_cents ?? 0 });
        }
      }
      if (out.changed.length) deps.logger.info({ changed: out.changed }, 'payment re-check applied changes found at the provider');
      return out;
    },

    async reconcile(): Promise<number> {
      // A creation that died between our row and the provider call leaves a pending row with no
      // charge behind it: nobody can pay it, so it is cancelled.
      await db('payments')
        .where({ status: 'pending' })
        .whereNull('provider_payment_id')
        .whereNot({ method: 'admin' })
        .where('created_at', '<', db.raw(`now() - interval '5 minutes'`))
        .update({
          status: 'cancelled',
          lapsed_at: db.fn.now(),
          review_reason: 'criação interrompida antes do provedor',
          updated_at: db.fn.now(),
        });
      // A pending PIX whose reservation was consumed or released (the step after that
      // transaction did not run): cancelled, and at the provider by its poll.
      const orphaned: Array<{ reservation_id: number }> = await db('payments as p')
        .join('reservations as r', 'r.id', 'p.reservation_id')
        .where('p.status', 'pending')
        .whereNot('r.status', 'active')
        .distinct('p.reservation_id')
        .limit(1000);
      for (const o of orphaned) await cancelPendingPaymentsOfReservation(db, o.reservation_id, 'reserva encerrada antes do pagamento');
      // Every payment the provider may still change: pending ones, lapsed ones inside the
      // late-check window, and charges still to be cancelled at the provider.
      const watched: Array<{ id: number }> = await db('payments')
        .whereNotNull('provider_payment_id')
        .where((w) =>
          w
            .where({ status: 'pending' })
            .orWhereRaw(IN_LATE_WINDOW_SQL)
            .orWhere((c) => c.where({ provider_cancel_pending: true }).whereIn('status', LAPSED_STATUSES as unknown as string[])),
        )
        .orderBy('id', 'desc')
        .select('id')
        .limit(5000);
      for (const p of watched) await checks.schedulePoll(p.id, 1_000);
      // Approved but never fulfilled (a crash between approval and fulfilment is impossible in one
      // transaction, but a manual status fix could leave one): fulfil now. Never one on hold.
      const unfulfilled: Array<{ id: number }> = await db('payments as p')
        .leftJoin('payment_fulfilments as f', 'f.payment_id', 'p.id')
        .where('p.status', 'approved')
        .where('p.fulfilment_on_hold', false)
        .whereNull('f.payment_id')
        .select('p.id')
        .limit(1000);
      for (const u of unfulfilled) {
        const row: PaymentRow = await db('payments').where({ id: u.id }).first();
        const f = await db.transaction((trx) =>
          fulfilPayment(trx, row, { vouchers: deps.vouchers, draws: deps.draws, receipts: deps.receipts }),
        );
        if (f.touchedDrawId) deps.draws.invalidateBoard(f.touchedDrawId);
        if (f.receiptOutboxId) await deps.receipts?.dispatch([f.receiptOutboxId]);
      }
      return watched.length;
    },
  };
  return checks;
}

import type { Services } from '../src/services';
import { CouponSyncJob } from '../src/coupons/schema';
import { buildRegistry, retryJobAt, type JobHandlers, type SweepPayload } from '../src/platform/queue';
import { outboxRelayJob } from './outbox';

/**
 * Every job name → its handler, in one place. buildRegistry throws at boot when
 * a job of JOB_NAMES has no handler or one is registered twice. Handlers only
 * call module services; no business rule lives here.
 */
export function registerJobHandlers(s: Services): JobHandlers {
  return buildRegistry([
    ['mail.send', async (data: { outboxId: number }) => s.mailer.deliver(data.outboxId)],
    ['mail.sweep', async (data: SweepPayload) => s.mailer.sweep({ recovery: !!data?.recovery })],
    ['reservation.expire', async (data: { reservationId: number }) => s.reservations.expire(data.reservationId)],
    ['reservation.sweep', async (data: SweepPayload) => s.reservations.sweep({ recovery: !!data?.recovery })],
    // Polls while the payment is pending or lapsed recently; the service says when to come back.
    [
      'payment.poll',
      async (data: { paymentId: number; attempt?: number }, job, token) => {
        const out = await s.payments.pollPass(data.paymentId, Number(data.attempt ?? 0));
        if (out.retryAt == null) return out.status;
        return retryJobAt(job, token, out.retryAt, out.status, { attempt: out.attempt });
      },
    ],
    // Rebuilds the polling of every pending payment on each run, recovery or not.
    ['payment.reconcile', async () => s.payments.reconcile()],
    // Asks the provider again about approved payments (RULES P11): refunds, chargebacks, disputes.
    ['payment.recheck', async (data: { id?: number; sinceDays?: number }) => s.payments.recheck(data ?? {})],
    ['coupon.sync', async (data: { userId?: number }) => s.coupons.runJob(CouponSyncJob.parse(data ?? {}))],
    // Fetches the contest every closed, undecided draw waits for and decides it (never twice).
    ['results.fetch', async (data: { contest?: number }) => s.results.fetch(data?.contest !== undefined ? { contest: data.contest } : {})],
    // Domain events → their modules' handlers (jobs/outbox.ts), then autopay's waiting draws again.
    ['outbox.relay', outboxRelayJob(s)],
    // Logs an error and writes an audit entry when a check fails (RULES B1).
    ['books.audit', async () => s.books.runNightly()],
    // A failure is recorded (backup_runs, metric) and retried by the job's attempts.
    ['backup.nightly', async () => s.backups.runNightly()],
    // Charges the draw's due runs; while retries wait, comes back at the earliest one.
    [
      'autopay.charge',
      async (data: { drawId: number }, job, token) => {
        const { retryAt, ...summary } = await s.autopay.chargeDraw(Number(data.drawId));
        if (retryAt == null) return summary;
        return retryJobAt(job, token, retryAt, summary);
      },
    ],
  ]);
}

/**
 * What the worker does while Redis is away (startWorker's `whileRedisDown`): release the
 * holds whose time is over, from the tables alone. Mail and payment polling wait for Redis;
 * the recovery sweeps rebuild them when it is back.
 */
export function offlineWork(s: Services): () => Promise<unknown> {
  return () => s.reservations.sweep();
}

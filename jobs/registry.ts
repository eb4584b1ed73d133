import type { Services } from '../src/services';
import { CouponSyncJob } from '../src/coupons/schema';
import { buildRegistry, on, retryJobAt, type JobHandlers } from '../src/platform/queue';
import { outboxRelayJob } from './outbox';

/**
 * Every job name → its handler, in one place. `on` types each handler's payload by its job's
 * name (the job map, src/platform/jobs.ts); buildRegistry throws at boot when a job of JOB_NAMES
 * has no handler or one is registered twice. Handlers only call module services; no business
 * rule lives here.
 */
export function registerJobHandlers(s: Services): JobHandlers {
  return buildRegistry([
    on('mail.send', async (data) => s.mailer.deliver(data.outboxId)),
    on('mail.sweep', async (data) => s.mailer.sweep({ recovery: !!data?.recovery })),
    on('reservation.expire', async (data) => s.reservations.expire(data.reservationId)),
    on('reservation.sweep', async (data) => s.reservations.sweep({ recovery: !!data?.recovery })),
    // Polls while the payment is pending or lapsed recently; the service says when to come back.
    on('payment.poll', async (data, job, token) => {
      const out = await s.payments.pollPass(data.paymentId, Number(data.attempt ?? 0));
      if (out.retryAt == null) return out.status;
      return retryJobAt(job, token, out.retryAt, out.status, { attempt: out.attempt });
    }),
    // Rebuilds the polling of every pending payment on each run, recovery or not.
    on('payment.reconcile', async () => s.payments.reconcile()),
    // Asks the provider again about approved payments (RULES P11): refunds, chargebacks, disputes.
    on('payment.recheck', async (data) => s.payments.recheck(data ?? {})),
    on('coupon.sync', async (data) => s.coupons.runJob(CouponSyncJob.parse(data ?? {}))),
    // Fetches the contest every closed, undecided draw waits for and decides it (never twice).
    on('results.fetch', async (data) => s.results.fetch(data?.contest !== undefined ? { contest: data.contest } : {})),
    // Domain events → their modules' handlers (jobs/outbox.ts), then autopay's waiting draws again.
    on('outbox.relay', outboxRelayJob(s)),
    // Logs an error and writes an audit entry when a check fails (RULES B1).
    on('books.audit', async () => s.books.runNightly()),
    // A failure is recorded (backup_runs, metric) and retried by the job's attempts.
    on('backup.nightly', async () => s.backups.runNightly()),
    // Charges the draw's due runs; while retries wait, comes back at the earliest one.
    on('autopay.charge', async (data, job, token) => {
      const { retryAt, ...summary } = await s.autopay.chargeDraw(Number(data.drawId));
      if (retryAt == null) return summary;
      return retryJobAt(job, token, retryAt, summary);
    }),
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

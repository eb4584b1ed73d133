import type { Services } from '../src/services';
import { CouponSyncJob } from '../src/coupons/schema';
import { buildRegistry, type JobHandlers } from '../src/platform/queue';

/**
 * Every job name → its handler, in one place. buildRegistry throws at boot when
 * a job of JOB_NAMES has no handler or one is registered twice. Handlers only
 * call module services; no business rule lives here.
 */
export function registerJobHandlers(s: Services): JobHandlers {
  return buildRegistry([
    ['mail.send', async (data: { outboxId: number }) => s.mailer.deliver(data.outboxId)],
    ['mail.sweep', async () => s.mailer.sweep()],
    ['reservation.expire', async (data: { reservationId: number }) => s.reservations.expire(data.reservationId)],
    ['reservation.sweep', async () => s.reservations.sweep()],
    ['payment.poll', async (data: { paymentId: number }, job, token) => s.payments.poll(data.paymentId, job, token)],
    ['payment.reconcile', async () => s.payments.reconcile()],
    ['coupon.sync', async (data: { userId?: number }) => s.coupons.runJob(CouponSyncJob.parse(data ?? {}))],
  ]);
}

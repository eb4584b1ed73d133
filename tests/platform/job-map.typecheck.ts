/**
 * The job map's types, checked by `npm run typecheck` (tsconfig.json includes tests/); not a jest
 * file, nothing here runs. Each `@ts-expect-error` line must fail to compile: a handler registered
 * for another payload, or a payload enqueued under the wrong job name, is a compile error. If one
 * of them compiled, tsc would report the directive as unused.
 */
import { buildRegistry, JOB_NAMES, on, type JobQueue } from '../../src/platform/queue';

export function registrations() {
  return buildRegistry([
    // The handler's payload is the one the map gives the name: no annotation needed.
    on('mail.send', async (data) => data.outboxId + 1),
    on('payment.poll', async (data, job) => [data.paymentId, data.attempt, job.data.paymentId]),
    // @ts-expect-error a handler written for another payload (outboxId is a number)
    on('mail.send', async (data: { outboxId: string }) => data.outboxId),
    // @ts-expect-error a field the job's payload does not have
    on('reservation.expire', async (data) => data.paymentId),
    // @ts-expect-error a job name that is not in the map
    on('mail.resend', async () => undefined),
    ...JOB_NAMES.map((n) => [n, async () => undefined] as const),
  ]);
}

export async function enqueueing(queue: JobQueue) {
  await queue.enqueue('reservation.expire', { reservationId: 1 });
  await queue.enqueueUnique('autopay.charge', { drawId: 7 }, 'autopay-7');
  // @ts-expect-error the payload of another job
  await queue.enqueue('reservation.expire', { paymentId: 1 });
  // @ts-expect-error a payload field of the wrong type
  await queue.enqueue('payment.poll', { paymentId: '1' });
  // @ts-expect-error a job whose payload is empty
  await queue.enqueueUnique('books.audit', { drawId: 1 }, 'books');
}

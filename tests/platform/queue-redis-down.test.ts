import { createRedis } from '../../src/platform/redis';
import { createJobQueue, QueueUnavailableError } from '../../src/platform/queue';

// Nothing listens on port 1: the connection never opens.
const dead = createRedis('redis://127.0.0.1:1', 'dead-queue', 'fail-fast');
dead.on('error', () => {});
const queue = createJobQueue(dead, 'down', { deadlineMs: 1000 });
afterAll(async () => {
  dead.disconnect();
  await queue.close().catch(() => {});
});

test('with Redis unreachable, enqueueing gives up within its deadline instead of waiting for Redis', async () => {
  for (const attempt of [
    () => queue.enqueue('reservation.expire', { reservationId: 1 }, { jobId: 'reservation-expire-1-0', delay: 1000 }),
    () => queue.enqueueUnique('mail.send', { outboxId: 1 }, 'mail-send-1'),
  ]) {
    // Waiting for Redis would never settle: settling at all (with the error) is the point; the
    // 30 s ceiling is only there to fail instead of hanging, not a timing assertion.
    let ceiling: NodeJS.Timeout | undefined;
    const err = await Promise.race([
      attempt().catch((e) => e),
      new Promise((r) => (ceiling = setTimeout(() => r(new Error('still waiting for Redis after 30 s')), 30_000))),
    ]).finally(() => clearTimeout(ceiling));
    expect(err).toBeInstanceOf(QueueUnavailableError);
  }
});

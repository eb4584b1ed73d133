import { createServices } from '../../../src/services';
import { startWorker } from '../../../src/platform/queue';
import { registerJobHandlers } from '../../../jobs/registry';

/**
 * The worker process of jobs/worker.ts (same services, same handler registry,
 * same startWorker), with BullMQ's lock and stalled-check intervals taken from
 * WORKER_LOCK_MS / WORKER_STALLED_MS so that a test can SIGKILL it and see
 * another worker take the job over in seconds instead of a minute.
 */
async function main() {
  const services = createServices();
  const running = await startWorker({
    connection: services.redis,
    prefix: services.config.queuePrefix,
    handlers: registerJobHandlers(services),
    logger: services.logger,
    queue: services.queue,
    lockDuration: Number(process.env.WORKER_LOCK_MS ?? 2_000),
    stalledInterval: Number(process.env.WORKER_STALLED_MS ?? 1_000),
  });
  process.stdout.write('worker ready\n');
  process.on('SIGTERM', () => {
    void running
      .close()
      .then(() => services.close())
      .then(() => process.exit(0));
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

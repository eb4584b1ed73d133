import { startWorker, type RunningWorker } from '../../src/platform/queue';
import { registerJobHandlers } from '../../jobs/registry';
import type { TestContext } from './context';

type WorkerOptions = Parameters<typeof startWorker>[0];

/**
 * A job worker in this process, as jobs/worker.ts starts one (the app's job handlers), on the
 * test context's Redis and queue prefix. `overrides` sets concurrency, schedules, timings.
 */
export function startTestWorker(
  t: TestContext,
  overrides: Partial<Omit<WorkerOptions, 'connection' | 'prefix' | 'queue'>> = {},
): Promise<RunningWorker> {
  return startWorker({
    connection: t.services.redis,
    prefix: t.services.config.queuePrefix,
    handlers: registerJobHandlers(t.services),
    logger: t.services.logger,
    queue: t.services.queue,
    ...overrides,
  });
}

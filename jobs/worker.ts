import { createServices } from '../src/services';
import { startWorker } from '../src/platform/queue';
import { ConfigError } from '../src/platform/config';
import { offlineWork, registerJobHandlers } from './registry';
import { startMetricsServer } from '../src/platform/metrics';
import { registerAppMetrics } from '../src/ops/metrics';

/** The worker process (Procfile `worker`): BullMQ worker + schedulers, graceful on SIGTERM. */
async function main() {
  const services = createServices();
  const handlers = registerJobHandlers(services);
  const running = await startWorker({
    connection: services.redis,
    prefix: services.config.queuePrefix,
    handlers,
    logger: services.logger,
    queue: services.queue,
    whileRedisDown: { everyMs: 30_000, run: offlineWork(services) },
  });
  services.logger.info('worker started');
  // The worker's own /metrics (job latency and failures are counted here, not in the web processes).
  registerAppMetrics(services, 'worker');
  // The last backup's metrics from backup_runs, so a restarted worker does not read as "never backed up".
  await services.backups
    .initMetrics()
    .catch((e) => services.logger.warn({ err: (e as Error).message }, 'backup metrics: last run unknown'));
  const metricsServer =
    services.config.metrics.workerPort !== undefined
      ? await startMetricsServer(services.config, services.config.metrics.workerPort, services.config.host, services.logger)
      : null;
  let closing = false;
  const shutdown = async (sig: string) => {
    if (closing) return;
    closing = true;
    services.logger.info({ sig }, 'worker shutting down (finishing active jobs)');
    await running.close();
    metricsServer?.close();
    await services.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((e) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});

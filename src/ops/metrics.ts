import type { Services } from '../services';
import { QUEUE_NAME } from '../platform/queue';
import { collectProcessMetrics, scrapeGauge } from '../platform/metrics';
import { openResultAlertCount } from '../draws/result-alerts';

/**
 * The gauges read at scrape time (platform/metrics.ts holds the registry): payments by status and
 * provider and the age of the oldest pending one (payments table, read-only), the queue's depth
 * per state (BullMQ counts), and in a web process its open event streams (draws/live.ts).
 * Called once by the web app (createApp) and by the worker.
 */
export function registerAppMetrics(services: Pick<Services, 'db' | 'fastRedis' | 'queue' | 'live'>, role: 'web' | 'worker') {
  collectProcessMetrics(role);
  const { db } = services;

  scrapeGauge({
    name: 'cotaverde_payments',
    help: 'Payments by status and provider (all time, from the database).',
    labelNames: ['status', 'provider'] as const,
    async collect(g) {
      const rows: Array<{ status: string; provider: string; n: number }> = await db('payments')
        .groupBy('status', 'provider')
        .select('status', 'provider', db.raw('count(*)::int AS n'));
      for (const r of rows) g.set({ status: r.status, provider: r.provider }, r.n);
    },
  });

  scrapeGauge({
    name: 'cotaverde_payments_oldest_pending_seconds',
    help: 'Age of the oldest pending payment (0 when none): payments stuck pending.',
    async collect(g) {
      const row = await db('payments').where({ status: 'pending' }).min<{ at: Date | null }>({ at: 'created_at' }).first();
      g.set(row?.at ? Math.max(0, (Date.now() - new Date(row.at).getTime()) / 1000) : 0);
    },
  });

  scrapeGauge({
    name: 'cotaverde_lottery_result_alerts_open',
    help: 'Contests the results service published without their draw order and nobody recorded yet (RULES W9): alert when above 0.',
    async collect(g) {
      g.set(await openResultAlertCount(db));
    },
  });

  const queue = services.queue.raw;
  scrapeGauge({
    name: 'cotaverde_queue_jobs',
    help: 'Jobs in the queue by state (waiting, active, delayed, failed, prioritized, waiting-children).',
    labelNames: ['queue', 'state'] as const,
    async collect(g) {
      if (services.fastRedis.status !== 'ready') return;
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized', 'waiting-children');
      for (const [state, n] of Object.entries(counts)) g.set({ queue: QUEUE_NAME, state }, n);
    },
  });

  if (role === 'web') {
    scrapeGauge({
      name: 'cotaverde_live_streams_open',
      help: 'Open live board streams (server-sent events) in this web process.',
      collect(g) {
        g.set(services.live.openStreams);
      },
    });
  }
}

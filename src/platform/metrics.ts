import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import client from 'prom-client';
import type Koa from 'koa';
import type { Config } from './config';
import type { Logger } from './logger';

/**
 * Prometheus metrics of this process (prom-client), in one registry per process: the web process
 * serves them on GET /metrics, the worker on its own port (WORKER_METRICS_PORT). Counters and
 * histograms are per process (Prometheus sums them over the processes it scrapes); the gauges that
 * describe shared state (payments by status, queue depth) are read at scrape time.
 *
 * Access: open in development and test; in production only with `Authorization: Bearer
 * <METRICS_TOKEN>`, otherwise (and when no token is configured) 404, as if there were nothing here.
 */
export const registry = new client.Registry();
registry.setDefaultLabels({ service: 'cotaverde' });
let defaultsOn = false;

/** Process metrics (CPU, memory, event loop lag, handles), once per process. */
export function collectProcessMetrics(role: 'web' | 'worker') {
  if (defaultsOn) return;
  defaultsOn = true;
  registry.setDefaultLabels({ service: 'cotaverde', role });
  client.collectDefaultMetrics({ register: registry, prefix: 'cotaverde_' });
}

export const httpDuration = new client.Histogram({
  name: 'cotaverde_http_request_duration_seconds',
  help: 'HTTP request latency by method, route (the router path, never the raw URL) and status.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const reservationsTotal = new client.Counter({
  name: 'cotaverde_reservations_total',
  help: 'Reservation requests by outcome: created, conflict (a number already taken or held), refused (other 4xx).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/**
 * Autopay charges the payment provider refused as a request (HTTP 4xx that is not a card decline:
 * the application not enabled for automatic payments, a bad request). Our side, never the
 * customer's: alert on any increase (docs/DEPLOY.md).
 */
export const autopayProviderRefusals = new client.Counter({
  name: 'cotaverde_autopay_provider_refusals_total',
  help: 'Autopay charges the payment provider refused as a request (not a card decline), by provider and HTTP status.',
  labelNames: ['provider', 'http_status'] as const,
  registers: [registry],
});

export const jobDuration = new client.Histogram({
  name: 'cotaverde_job_duration_seconds',
  help: 'Time a job ran in the worker, by queue, job name and outcome.',
  labelNames: ['queue', 'job', 'outcome'] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
});

export const jobWait = new client.Histogram({
  name: 'cotaverde_job_wait_seconds',
  help: 'Time a job waited between becoming due and starting, by queue and job name.',
  labelNames: ['queue', 'job'] as const,
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
  registers: [registry],
});

export const jobFailures = new client.Counter({
  name: 'cotaverde_job_failures_total',
  help: 'Failed job attempts by queue and job name (each attempt that threw).',
  labelNames: ['queue', 'job'] as const,
  registers: [registry],
});

export const lotteryResultsWithoutDrawOrder = new client.Counter({
  name: 'cotaverde_lottery_results_without_draw_order_total',
  help: 'Answers of the Lotomania results service that published a contest without its draw order (each poll counts): closed draws wait for an operator to type the result.',
  registers: [registry],
});

/** A proof mail queued by a process whose ADMIN_EMAILS lists the address, sent by one whose list does not (auth/service.ts). */
export const adminEmailsMismatch = new client.Counter({
  name: 'cotaverde_admin_emails_mismatch_total',
  help: 'ADMIN_EMAILS proof mails sent by a process whose ADMIN_EMAILS does not list the address the queuing process listed: the processes run with different ADMIN_EMAILS.',
  registers: [registry],
});

const booksCheckOk = new client.Gauge({
  name: 'cotaverde_books_check_ok',
  help: 'Result of the last books check in this process: 1 the books balance, 0 they do not. Absent until a check ran.',
  registers: [registry],
});
const booksCheckAt = new client.Gauge({
  name: 'cotaverde_books_check_timestamp_seconds',
  help: 'When the last books check in this process finished (Unix time).',
  registers: [registry],
});

/** Records the outcome of a books check (the nightly audit calls it; the alert reads the gauge). */
export function recordBooksCheck(ok: boolean, at: Date = new Date()) {
  booksCheckOk.set(ok ? 1 : 0);
  booksCheckAt.set(Math.floor(at.getTime() / 1000));
}

const backupLastSuccess = new client.Gauge({
  name: 'cotaverde_backup_last_success_timestamp_seconds',
  help: 'When the last successful backup finished (Unix time); set at worker start from backup_runs, 0 when there was none.',
  registers: [registry],
});
const backupLastBytes = new client.Gauge({
  name: 'cotaverde_backup_last_size_bytes',
  help: 'Size of the last successful backup file.',
  registers: [registry],
});
const backupFailures = new client.Counter({
  name: 'cotaverde_backup_failures_total',
  help: 'Backups that failed in this process (the BackupFailing alert, docs/DEPLOY.md).',
  registers: [registry],
});
const backupEnabled = new client.Gauge({
  name: 'cotaverde_backup_enabled',
  help: '1 when this worker takes the nightly backup, 0 when BACKUP_DISABLED says the platform does.',
  registers: [registry],
});

/** Records a backup run (src/ops/backups.ts); the BackupMissing / BackupFailing alerts read these. */
export function recordBackup(o: { ok: true; at: Date; bytes: number } | { ok: false }) {
  if (o.ok) {
    backupLastSuccess.set(Math.floor(o.at.getTime() / 1000));
    backupLastBytes.set(o.bytes);
  } else backupFailures.inc();
}

/** At worker start: whether backups run here, and the last success known to the database. */
export function initBackupMetrics(o: { enabled: boolean; lastSuccess: { at: Date; bytes: number } | null }) {
  backupEnabled.set(o.enabled ? 1 : 0);
  backupFailures.inc(0);
  if (o.lastSuccess) recordBackup({ ok: true, ...o.lastSuccess });
  else backupLastSuccess.set(0);
}

/**
 * A gauge read at scrape time: `collect` sets its values (and resets the stale ones). A collect that
 * throws (database or Redis away) leaves the gauge empty for that scrape instead of failing it.
 */
export function scrapeGauge<L extends string>(o: {
  name: string;
  help: string;
  labelNames?: readonly L[];
  collect: (g: client.Gauge<L>) => Promise<void> | void;
}) {
  const existing = registry.getSingleMetric(o.name);
  if (existing) registry.removeSingleMetric(o.name);
  return new client.Gauge<L>({
    name: o.name,
    help: o.help,
    labelNames: o.labelNames ?? [],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        await o.collect(this);
      } catch {
        /* stays empty this scrape; `cotaverde_up`-style alerts see the gap */
      }
    },
  });
}

/** Koa: one observation per request, labelled with the matched router path. */
export function httpMetrics(): Koa.Middleware {
  return async (ctx, next) => {
    const end = httpDuration.startTimer();
    try {
      await next();
    } finally {
      const route = (ctx as unknown as { _matchedRoute?: string | RegExp })._matchedRoute;
      end({
        method: ctx.method,
        route: route ? String(route) : ctx.path.startsWith('/api') ? 'unmatched' : 'static',
        status: String(ctx.status),
      });
    }
  };
}

/** Whether a request may read the metrics (see the access rule above). */
export function metricsAllowed(config: Pick<Config, 'isProduction' | 'metrics'>, authorization: string | undefined): boolean {
  if (!config.isProduction) return true;
  const token = config.metrics.token;
  if (!token || !authorization?.startsWith('Bearer ')) return false;
  const given = Buffer.from(authorization.slice(7));
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

async function writeMetrics(req: IncomingMessage, res: ServerResponse, config: Pick<Config, 'isProduction' | 'metrics'>) {
  if (req.method !== 'GET' || !metricsAllowed(config, req.headers.authorization)) {
    res.writeHead(404, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ error: 'not_found', message: 'Não encontrado.' }));
    return;
  }
  const body = await registry.metrics();
  res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' });
  res.end(body);
}

/** Koa: GET /metrics (before the SPA and the /api routes). */
export function metricsRoute(config: Pick<Config, 'isProduction' | 'metrics'>): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.path !== '/metrics') return next();
    ctx.respond = false;
    ctx.status = 200;
    await writeMetrics(ctx.req, ctx.res, config);
  };
}

/** The worker's own metrics server (WORKER_METRICS_PORT): GET /metrics, same access rule. */
export function startMetricsServer(
  config: Pick<Config, 'isProduction' | 'metrics'>,
  port: number,
  host: string,
  logger: Logger,
): Promise<Server> {
  const server = createServer((req, res) => {
    if ((req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ error: 'not_found', message: 'Não encontrado.' }));
      return;
    }
    writeMetrics(req, res, config).catch((err: Error) => {
      logger.warn({ err: err.message }, 'metrics not written');
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      logger.info({ port: (server.address() as { port: number }).port }, 'worker metrics listening');
      resolve(server);
    });
  });
}

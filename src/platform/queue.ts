import { DelayedError, Queue, Worker, UnrecoverableError, type Job, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from './logger';
import { HEARTBEAT_EVERY_MS, schedulerSetKey, startHeartbeat } from './heartbeat';

import { jobDuration, jobFailures, jobWait } from './metrics';

export { UnrecoverableError };

/**
 * The typed map of every background job: name → payload. A job id built from
 * business ids (no ':') deduplicates; the database stays the source of truth and
 * periodic sweeps rebuild what a Redis wipe loses.
 */
export interface JobPayloads {
  /** Deliver one outbox mail. */
  'mail.send': { outboxId: number };
  /** Periodic: enqueue every pending outbox mail (recovers lost jobs). */
  'mail.sweep': SweepPayload;
  /** Release one reservation when its hold expires. */
  'reservation.expire': { reservationId: number };
  /** Periodic: release every reservation past its hold (recovers lost delayed jobs). */
  'reservation.sweep': SweepPayload;
  /** Ask the provider about one pending payment; re-delays itself until the payment settles or expires. */
  'payment.poll': { paymentId: number; attempt?: number };
  /** Periodic: rebuild polling for every pending payment and fulfil any approved-but-unfulfilled one. */
  'payment.reconcile': SweepPayload;
  /**
   * Ask the provider again about approved payments (RULES P11): those due on the decaying schedule,
   * or one payment (`id`), or every one approved in the last `sinceDays` days.
   */
  'payment.recheck': { id?: number; sinceDays?: number };
  /** Coupons: credit missed payments, reverse refunds, write expiries, push changed balances (one user, or everyone hourly). */
  'coupon.sync': { userId?: number };
  /** Periodic: fetch the Lotomania result every closed, undecided draw waits for, and decide it (RULES W1, W4). */
  'results.fetch': { contest?: number };
  /** Outbox relay: undelivered domain events → their jobs (marks dispatched_at); re-queues draws with autopay runs pending. */
  'outbox.relay': SweepPayload;
  /** Charges the autopay runs of one draw, once each; re-delays itself while transient failures wait for a retry. */
  'autopay.charge': { drawId: number };
  /** Nightly: check the books (RULES B1); a failure is logged as an error and audited. */
  'books.audit': Record<string, never>;
  /** Nightly: a backup of the whole database into BACKUP_DIR, then the retention (ops/backups.ts). */
  'backup.nightly': Record<string, never>;
}

/**
 * A sweep's payload. `recovery`: the run the worker queues whenever its Redis
 * connection (re)opens — Redis may have lost every job while it was away, so
 * the sweep rebuilds all pending work from the tables at once (every outbox
 * mail still pending, the expiry job of every active hold, the polling of every
 * pending payment) instead of only what is overdue.
 */
export interface SweepPayload {
  recovery?: boolean;
}

/** The sweeps: what the worker schedules, and runs once more on every (re)connection. */
export const SWEEPS = ['mail.sweep', 'reservation.sweep', 'payment.reconcile', 'outbox.relay'] as const satisfies readonly JobName[];

export type JobName = keyof JobPayloads;
export const JOB_NAMES = ['mail.send', 'mail.sweep', 'reservation.expire', 'reservation.sweep', 'payment.poll', 'payment.reconcile', 'payment.recheck', 'coupon.sync', 'results.fetch', 'outbox.relay', 'autopay.charge', 'books.audit', 'backup.nightly'] as const satisfies readonly JobName[];

// Compile-time check that JOB_NAMES lists every key of JobPayloads.
type Missing = Exclude<JobName, (typeof JOB_NAMES)[number]>;
const _allListed: Missing extends never ? true : never = true;
void _allListed;

export type JobHandler<K extends JobName> = (data: JobPayloads[K], job: Job<JobPayloads[K]>, token?: string) => Promise<unknown>;
export type JobHandlers = { [K in JobName]: JobHandler<K> };

/**
 * A schedule the worker keeps in Redis: every `everyMs`, or on a cron `pattern` in the time
 * zone `tz` (BullMQ job schedulers; one run per tick whatever the number of workers).
 */
export type Schedule = { id: string; name: JobName } & ({ everyMs: number; pattern?: never; tz?: never } | { pattern: string; tz: string; everyMs?: never });

/** Lotomania is drawn Mon/Wed/Fri at 20:00 Brasília: results are fetched every 30 minutes from 20:30 to 23:59 on those days, hourly otherwise. */
const BRASILIA = 'America/Sao_Paulo';
export const RESULTS_SCHEDULES: Schedule[] = [
  { id: 'results-fetch-draw-night-first', name: 'results.fetch', pattern: '30 20 * * 1,3,5', tz: BRASILIA },
  { id: 'results-fetch-draw-night', name: 'results.fetch', pattern: '0,30 21-23 * * 1,3,5', tz: BRASILIA },
  { id: 'results-fetch-draw-day', name: 'results.fetch', pattern: '0 0-20 * * 1,3,5', tz: BRASILIA },
  { id: 'results-fetch-hourly', name: 'results.fetch', pattern: '0 * * * 0,2,4,6', tz: BRASILIA },
];

/** Schedules the worker keeps in Redis (upsertJobScheduler on every boot). */
export const SCHEDULES: Schedule[] = [
  { id: 'mail-sweep', name: 'mail.sweep', everyMs: 60_000 },
  { id: 'reservation-sweep', name: 'reservation.sweep', everyMs: 30_000 },
  { id: 'payment-reconcile', name: 'payment.reconcile', everyMs: 60_000 },
  // Approved payments due on their decaying re-check schedule (RULES P11).
  { id: 'payment-recheck', name: 'payment.recheck', everyMs: 10 * 60_000 },
  { id: 'coupon-sync', name: 'coupon.sync', everyMs: 3_600_000 },
  ...RESULTS_SCHEDULES,
  { id: 'outbox-relay', name: 'outbox.relay', everyMs: 2_000 },
  // The books, every night at 03:30 Brasília (a quiet hour, after the draw nights' results).
  { id: 'books-audit-nightly', name: 'books.audit', pattern: '30 3 * * *', tz: BRASILIA },
  // The backup, every night at 04:00 Brasília, after the books (its manifest carries their check too).
  { id: 'backup-nightly', name: 'backup.nightly', pattern: '0 4 * * *', tz: BRASILIA },
];

export const QUEUE_NAME = 'main';

/** Enqueueing was refused because Redis is unreachable or too slow: the caller logs it, a sweep redoes it. */
export class QueueUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueueUnavailableError';
  }
}

export interface JobQueue {
  /**
   * Adds a job. Never waits on Redis for long: while the connection is down it
   * rejects at once (QueueUnavailableError), and a call Redis does not answer
   * within the deadline (1 s) rejects too. Callers on a request path catch,
   * log and go on — the database write is what counts, the sweeps rebuild the job.
   */
  enqueue<K extends JobName>(name: K, data: JobPayloads[K], opts?: JobsOptions): Promise<void>;
  /**
   * Adds a job under a business id (no ':'). A job of that id still waiting,
   * delayed or running is kept (dedup, returns false). One that already
   * completed or failed is replaced: BullMQ keeps finished jobs for a while and
   * would otherwise silently ignore a re-dispatch of work the database still
   * says is pending (e.g. a sweep after a failure).
   */
  enqueueUnique<K extends JobName>(name: K, data: JobPayloads[K], jobId: string, opts?: JobsOptions): Promise<boolean>;
  raw: Queue;
  close(): Promise<void>;
}

const DEFAULT_OPTS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: { age: 3600, count: 1000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

/**
 * The queue on `connection`, which should be a 'fail-fast' one (see createRedis):
 * BullMQ's Queue (unlike its Worker) accepts it, and its commands then fail
 * instead of waiting in ioredis' offline queue while Redis is away.
 */
export function createJobQueue(connection: Redis, prefix: string, opts: { deadlineMs?: number } = {}): JobQueue {
  const queue = new Queue(QUEUE_NAME, { connection, prefix, defaultJobOptions: DEFAULT_OPTS });
  // Errors also reach the connection's own listener (logged by its owner); this keeps an
  // unhandled 'error' event of the Queue from crashing the process.
  queue.on('error', () => {});
  const deadlineMs = opts.deadlineMs ?? 1000;
  let everReady = connection.status === 'ready';
  if (!everReady) connection.once('ready', () => (everReady = true));

  /** Runs `op` against Redis within the deadline, or rejects without touching Redis when it is down. */
  async function guarded<T>(op: () => Promise<T>): Promise<T> {
    if (connection.status !== 'ready') {
      // A process that just started waits (within the deadline) for its first connection;
      // once it has been up, a lost connection means "Redis is down": refuse at once.
      if (everReady || connection.status === 'end') throw new QueueUnavailableError(`redis ${connection.status}`);
    }
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new QueueUnavailableError(`redis did not answer within ${deadlineMs} ms`)), deadlineMs);
    });
    const work = op();
    work.catch(() => {}); // a late failure after the deadline is already reported
    try {
      return await Promise.race([work, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    raw: queue,
    async enqueue(name, data, opts) {
      await guarded(() => queue.add(name, data, opts));
    },
    enqueueUnique(name, data, jobId, opts) {
      return guarded(async () => {
        const existing = await queue.getJob(jobId);
        if (existing) {
          const state = await existing.getState();
          if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return false;
          // A finished job may be removed concurrently by its retention policy.
          await existing.remove().catch(() => {});
        }
        await queue.add(name, data, { ...opts, jobId });
        return true;
      });
    },
    close: () => queue.close(),
  };
}

/**
 * A job handler's "come back later under the same job id" (BullMQ's manual delay): saves `data`
 * when given (e.g. an attempt counter), moves the job to delayed until `at` (epoch ms) and throws
 * BullMQ's DelayedError so the worker neither completes nor fails it. Services only return when
 * to come back; this is the one place that re-delays a job. Without a token (a job not taken by a
 * worker) nothing is moved and `fallback` is returned.
 */
export async function retryJobAt<T>(job: Job, token: string | undefined, at: number, fallback: T, data?: object): Promise<T> {
  if (!token) return fallback;
  if (data) await job.updateData({ ...(job.data as object), ...data });
  await job.moveToDelayed(at, token);
  throw new DelayedError();
}

/**
 * Builds the dispatch table from (name, handler) pairs: fails at boot when a
 * job of JOB_NAMES has no handler or one name is registered twice.
 */
export function buildRegistry(entries: Array<[JobName, JobHandler<any>]>): JobHandlers {
  const table = new Map<JobName, JobHandler<any>>();
  for (const [name, handler] of entries) {
    if (!JOB_NAMES.includes(name)) throw new Error(`job registry: unknown job '${name}'`);
    if (table.has(name)) throw new Error(`job registry: job '${name}' registered twice`);
    table.set(name, handler);
  }
  const missing = JOB_NAMES.filter((n) => !table.has(n));
  if (missing.length) throw new Error(`job registry: no handler for ${missing.join(', ')}`);
  return Object.fromEntries(table) as JobHandlers;
}

export interface RunningWorker {
  worker: Worker;
  close(): Promise<void>;
}

export async function startWorker(opts: {
  connection: Redis;
  prefix: string;
  handlers: JobHandlers;
  logger: Logger;
  queue: JobQueue;
  concurrency?: number;
  schedules?: typeof SCHEDULES;
  /**
   * BullMQ's job lock and stalled-job check (defaults 30 s each): a job whose
   * worker died is re-run after its lock expires. Tests shorten them.
   */
  lockDuration?: number;
  stalledInterval?: number;
  /** How often the schedules are upserted again (default 5 min). */
  scheduleRefreshMs?: number;
  /**
   * Work that needs no Redis, run every `everyMs` while the worker's Redis connection is
   * down (e.g. releasing holds whose time is over, straight from the tables), so an outage
   * does not freeze the board until Redis is back.
   */
  whileRedisDown?: { everyMs: number; run: () => Promise<unknown> };
  /** How often this worker writes its heartbeat (read by /api/ready; heartbeat.ts). Default 10 s. */
  heartbeatMs?: number;
  /**
   * How often the worker checks that its schedules are still in Redis (default 20 s): a Redis
   * that lost its keys while the worker stayed connected (FLUSHALL, a failover to an empty node
   * behind the same address) gets them back, with one recovery run of each sweep, within a minute.
   */
  scheduleCheckMs?: number;
}): Promise<RunningWorker> {
  const { logger, handlers } = opts;
  const schedules = opts.schedules ?? SCHEDULES;
  let closed = false;
  const upsertSchedules = async () => {
    for (const s of schedules) {
      const repeat = s.pattern ? { pattern: s.pattern, tz: s.tz } : { every: s.everyMs };
      await opts.queue.raw.upsertJobScheduler(s.id, repeat, { name: s.name, data: {}, opts: { removeOnComplete: true, removeOnFail: 100 } });
    }
  };
  // Upserting is idempotent: doing it again every few minutes brings the sweeps back
  // after a Redis wipe without waiting for a worker restart.
  const scheduleTimer = setInterval(() => {
    upsertSchedules().catch((err) => logger.warn({ err: (err as Error).message }, 'could not refresh job schedules'));
  }, opts.scheduleRefreshMs ?? 5 * 60_000);
  scheduleTimer.unref();

  /**
   * On boot and whenever the worker's connection opens again after Redis was away
   * (restarted, maybe emptied): put the schedules back and queue one recovery run of
   * each scheduled sweep, which rebuilds every pending job from the tables. Retried
   * with a backoff until Redis takes it.
   */
  let recovering: Promise<void> | null = null;
  const recover = (why: string): Promise<void> => {
    recovering ??= (async () => {
      for (let attempt = 0; !closed; attempt++) {
        try {
          await upsertSchedules();
          const sweeps = SWEEPS.filter((name) => schedules.some((s) => s.name === name));
          for (const name of sweeps) await opts.queue.enqueue(name, { recovery: true }, { removeOnComplete: true, removeOnFail: 100 });
          logger.info({ why, sweeps }, 'job schedules in place; recovery sweeps queued');
          return;
        } catch (err) {
          logger.warn({ why, attempt, err: (err as Error).message }, 'redis not usable yet; retrying schedules and recovery sweeps');
          await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** attempt, 10_000)).unref());
        }
      }
    })().finally(() => {
      recovering = null;
    });
    return recovering;
  };

  // Schedules lost while connected (no reconnection to tell): checked, then recovered.
  const schedulerSet = schedulerSetKey(opts.prefix, QUEUE_NAME);
  let checking = false;
  const checkTimer = setInterval(() => {
    if (closed || checking || recovering || opts.connection.status !== 'ready' || !schedules.length) return;
    checking = true;
    Promise.all(schedules.map((s) => opts.connection.zscore(schedulerSet, s.id)))
      .then((scores) => {
        const missing = schedules.filter((_, i) => scores[i] === null).map((s) => s.id);
        if (!missing.length || closed) return;
        logger.warn({ missing }, 'job schedules missing from redis (keys lost while connected); restoring them and running the recovery sweeps');
        return recover('schedules lost');
      })
      .catch((err) => logger.debug({ err: (err as Error).message }, 'could not check job schedules'))
      .finally(() => (checking = false));
  }, opts.scheduleCheckMs ?? 20_000);
  checkTimer.unref();

  // BullMQ does not close a connection it was given: keep it to close it ourselves.
  const connection = opts.connection.duplicate();
  let wasDown = false;
  // During an outage every reconnection attempt errors: the first is a warning, the rest debug.
  connection.on('error', (err) => (wasDown ? logger.debug : logger.warn).call(logger, { err: err.message }, 'worker redis connection error'));
  let offlineTimer: NodeJS.Timeout | undefined;
  if (opts.whileRedisDown) {
    const { everyMs, run } = opts.whileRedisDown;
    let running = false;
    offlineTimer = setInterval(() => {
      if (!wasDown || running || closed) return;
      running = true;
      run()
        .catch((err) => logger.warn({ err: (err as Error).message }, 'offline work failed'))
        .finally(() => (running = false));
    }, everyMs);
    offlineTimer.unref();
  }
  connection.on('close', () => {
    if (!closed && !wasDown) logger.warn('worker lost its redis connection; jobs wait, sweeps will rebuild what Redis loses');
    wasDown = true;
  });
  connection.on('ready', () => {
    if (!wasDown || closed) return;
    wasDown = false;
    logger.info('worker redis connection is back');
    void recover('redis reconnected');
  });
  const worker = new Worker(
    QUEUE_NAME,
    async (job: Job, token?: string) => {
      const handler = handlers[job.name as JobName];
      if (!handler) throw new UnrecoverableError(`no handler for job ${job.name}`);
      const labels = { queue: QUEUE_NAME, job: job.name };
      // Due at its timestamp plus its delay; the wait is how long it stood in line after that.
      jobWait.observe(labels, Math.max(0, Date.now() - job.timestamp - (job.delay ?? 0)) / 1000);
      const end = jobDuration.startTimer(labels);
      try {
        const out = await handler(job.data, job, token);
        end({ outcome: 'completed' });
        return out;
      } catch (e) {
        end({ outcome: 'failed' });
        throw e;
      }
    },
    {
      connection,
      prefix: opts.prefix,
      concurrency: opts.concurrency ?? 8,
      ...(opts.lockDuration ? { lockDuration: opts.lockDuration } : {}),
      ...(opts.stalledInterval ? { stalledInterval: opts.stalledInterval } : {}),
    },
  );
  worker.on('failed', (job, err) => {
    jobFailures.inc({ queue: QUEUE_NAME, job: job?.name ?? 'unknown' });
    logger.warn({ job: job?.name, jobId: job?.id, attempts: job?.attemptsMade, err: err.message }, 'job failed');
  });
  worker.on('error', (err) => (wasDown ? logger.debug : logger.error).call(logger, { err: err.message }, 'worker error'));
  await worker.waitUntilReady();
  await warnUnlessNoEviction(opts.connection, logger);
  await recover('worker started');
  const heartbeat = await startHeartbeat(
    opts.connection,
    opts.prefix,
    (err) => logger.debug({ err: err.message }, 'worker heartbeat not written'),
    opts.heartbeatMs ?? HEARTBEAT_EVERY_MS,
    schedules.map((s) => s.id),
  );
  return {
    worker,
    async close() {
      closed = true;
      await heartbeat.stop();
      clearInterval(scheduleTimer);
      clearInterval(checkTimer);
      clearInterval(offlineTimer);
      // Graceful (active jobs finish), but never stuck on a Redis that is away: after 15 s
      // the connection is dropped; an unfinished job is re-run after its lock expires.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([worker.close(), new Promise((r) => (timer = setTimeout(r, 15_000)))]).finally(() => clearTimeout(timer));
      connection.disconnect();
    },
  };
}

/**
 * BullMQ needs every key it writes to stay: with an eviction policy other than noeviction,
 * Redis under memory pressure drops jobs and schedules silently. Warned at start-up; a Redis
 * that does not allow CONFIG GET (some managed services) is noted, not refused.
 */
export async function warnUnlessNoEviction(redis: Redis, logger: Logger): Promise<string | null> {
  try {
    const r = (await redis.config('GET', 'maxmemory-policy')) as unknown as string[];
    const policy = Array.isArray(r) && r.length >= 2 ? String(r[1]) : null;
    if (policy && policy !== 'noeviction')
      logger.warn({ maxmemoryPolicy: policy }, `redis maxmemory-policy is ${policy}: set it to noeviction, or jobs and schedules can be evicted under memory pressure`);
    return policy;
  } catch (err) {
    logger.info({ err: (err as Error).message }, 'could not read redis maxmemory-policy (CONFIG GET refused); it must be noeviction');
    return null;
  }
}

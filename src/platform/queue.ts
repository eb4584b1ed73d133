import { Queue, Worker, UnrecoverableError, type Job, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from './logger';

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
  'mail.sweep': Record<string, never>;
  /** Release one reservation when its hold expires. */
  'reservation.expire': { reservationId: number };
  /** Periodic: release every reservation past its hold (recovers lost delayed jobs). */
  'reservation.sweep': Record<string, never>;
  /** Ask the provider about one pending payment; re-delays itself until the payment settles or expires. */
  'payment.poll': { paymentId: number; attempt?: number };
  /** Periodic: rebuild polling for every pending payment and fulfil any approved-but-unfulfilled one. */
  'payment.reconcile': Record<string, never>;
  /** Coupons: credit missed payments, reverse refunds, write expiries, push changed balances (one user, or everyone hourly). */
  'coupon.sync': { userId?: number };
}

export type JobName = keyof JobPayloads;
export const JOB_NAMES = ['mail.send', 'mail.sweep', 'reservation.expire', 'reservation.sweep', 'payment.poll', 'payment.reconcile', 'coupon.sync'] as const satisfies readonly JobName[];

// Compile-time check that JOB_NAMES lists every key of JobPayloads.
type Missing = Exclude<JobName, (typeof JOB_NAMES)[number]>;
const _allListed: Missing extends never ? true : never = true;
void _allListed;

export type JobHandler<K extends JobName> = (data: JobPayloads[K], job: Job<JobPayloads[K]>, token?: string) => Promise<unknown>;
export type JobHandlers = { [K in JobName]: JobHandler<K> };

/** Schedules the worker keeps in Redis (upsertJobScheduler on every boot). */
export const SCHEDULES: Array<{ id: string; name: JobName; everyMs: number }> = [
  { id: 'mail-sweep', name: 'mail.sweep', everyMs: 60_000 },
  { id: 'reservation-sweep', name: 'reservation.sweep', everyMs: 30_000 },
  { id: 'payment-reconcile', name: 'payment.reconcile', everyMs: 60_000 },
  { id: 'coupon-sync', name: 'coupon.sync', everyMs: 3_600_000 },
];

export const QUEUE_NAME = 'main';

export interface JobQueue {
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

export function createJobQueue(connection: Redis, prefix: string): JobQueue {
  const queue = new Queue(QUEUE_NAME, { connection, prefix, defaultJobOptions: DEFAULT_OPTS });
  return {
    raw: queue,
    async enqueue(name, data, opts) {
      await queue.add(name, data, opts);
    },
    async enqueueUnique(name, data, jobId, opts) {
      const existing = await queue.getJob(jobId);
      if (existing) {
        const state = await existing.getState();
        if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return false;
        // A finished job may be removed concurrently by its retention policy.
        await existing.remove().catch(() => {});
      }
      await queue.add(name, data, { ...opts, jobId });
      return true;
    },
    close: () => queue.close(),
  };
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
}): Promise<RunningWorker> {
  const { logger, handlers } = opts;
  const schedules = opts.schedules ?? SCHEDULES;
  const upsertSchedules = async () => {
    for (const s of schedules) {
      await opts.queue.raw.upsertJobScheduler(s.id, { every: s.everyMs }, { name: s.name, data: {}, opts: { removeOnComplete: true, removeOnFail: 100 } });
    }
  };
  await upsertSchedules();
  // Upserting is idempotent: doing it again every few minutes brings the sweeps back
  // after a Redis wipe without waiting for a worker restart.
  const scheduleTimer = setInterval(() => {
    upsertSchedules().catch((err) => logger.warn({ err: (err as Error).message }, 'could not refresh job schedules'));
  }, opts.scheduleRefreshMs ?? 5 * 60_000);
  scheduleTimer.unref();
  // BullMQ does not close a connection it was given: keep it to close it ourselves.
  const connection = opts.connection.duplicate();
  connection.on('error', (err) => logger.warn({ err: err.message }, 'worker redis connection error'));
  const worker = new Worker(
    QUEUE_NAME,
    async (job: Job, token?: string) => {
      const handler = handlers[job.name as JobName];
      if (!handler) throw new UnrecoverableError(`no handler for job ${job.name}`);
      return handler(job.data, job, token);
    },
    {
      connection,
      prefix: opts.prefix,
      concurrency: opts.concurrency ?? 8,
      ...(opts.lockDuration ? { lockDuration: opts.lockDuration } : {}),
      ...(opts.stalledInterval ? { stalledInterval: opts.stalledInterval } : {}),
    },
  );
  worker.on('failed', (job, err) =>
    logger.warn({ job: job?.name, jobId: job?.id, attempts: job?.attemptsMade, err: err.message }, 'job failed'),
  );
  worker.on('error', (err) => logger.error({ err: err.message }, 'worker error'));
  await worker.waitUntilReady();
  return {
    worker,
    async close() {
      clearInterval(scheduleTimer);
      await worker.close();
      connection.disconnect();
    },
  };
}

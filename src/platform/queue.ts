import { DelayedError, Queue, UnrecoverableError, type Job, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { QUEUE_NAME, type JobName, type JobPayloads } from './jobs';

export { UnrecoverableError };
// The job map (names, payloads, schedules, the registry) and the worker, for the modules that
// import them from here.
export * from './jobs';
export { startWorker, warnUnlessNoEviction, type RunningWorker } from './job-worker';

/**
 * Enqueueing background jobs (BullMQ's Queue): `enqueue(name, payload)` takes the payload the job
 * map gives the name (jobs.ts), never waits on Redis for long, and re-delaying a running job is
 * retryJobAt. The database stays the source of truth; the sweeps rebuild what Redis loses.
 */

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

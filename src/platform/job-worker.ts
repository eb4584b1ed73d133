import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from './logger';
import { HEARTBEAT_EVERY_MS, schedulerSetKey, startHeartbeat } from './heartbeat';
import { jobDuration, jobFailures, jobWait } from './metrics';
import { QUEUE_NAME, SCHEDULES, SWEEPS, type JobHandlers, type JobName } from './jobs';
import type { JobQueue } from './queue';

/**
 * The BullMQ worker: runs the registered handlers, keeps the schedules in Redis and, whenever its
 * connection (re)opens, queues one recovery run of each sweep. The job map is jobs.ts, the queue
 * (enqueueing) queue.ts.
 */
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
      await opts.queue.raw.upsertJobScheduler(s.id, repeat, {
        name: s.name,
        data: {},
        opts: { removeOnComplete: true, removeOnFail: 100 },
      });
    }
  };
  // Upserting is idempotent: doing it again every few minutes brings the sweeps back
  // after a Redis wipe without waiting for a worker restart.
  const scheduleTimer = setInterval(
    () => {
      upsertSchedules().catch((err) => logger.warn({ err: (err as Error).message }, 'could not refresh job schedules'));
    },
    opts.scheduleRefreshMs ?? 5 * 60_000,
  );
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
        logger.warn(
          { missing },
          'job schedules missing from redis (keys lost while connected); restoring them and running the recovery sweeps',
        );
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
  connection.on('error', (err) =>
    (wasDown ? logger.debug : logger.warn).call(logger, { err: err.message }, 'worker redis connection error'),
  );
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
      logger.warn(
        { maxmemoryPolicy: policy },
        `redis maxmemory-policy is ${policy}: set it to noeviction, or jobs and schedules can be evicted under memory pressure`,
      );
    return policy;
  } catch (err) {
    logger.info({ err: (err as Error).message }, 'could not read redis maxmemory-policy (CONFIG GET refused); it must be noeviction');
    return null;
  }
}

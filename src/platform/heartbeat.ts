import { hostname } from 'node:os';
import type { Redis } from './redis';

/**
 * Worker heartbeats: each worker process writes `now` under its own field of one Redis hash
 * every HEARTBEAT_EVERY_MS; /api/ready reads the newest one and says how old it is. A worker
 * that stopped beating for longer than HEARTBEAT_STALE_MS counts as gone.
 */
export const HEARTBEAT_EVERY_MS = 10_000;
export const HEARTBEAT_STALE_MS = 30_000;
/** Fields older than this are pruned (workers that stopped long ago). */
const PRUNE_AFTER_MS = 60 * 60_000;

export const heartbeatKey = (prefix: string) => `${prefix}:workers:heartbeat`;
/** Hash: worker id → JSON list of the job scheduler ids that worker keeps (read by /api/ready). */
export const schedulesKey = (prefix: string) => `${prefix}:workers:schedules`;
/** Where BullMQ keeps the job schedulers of queue `queue` (a sorted set of scheduler ids). */
export const schedulerSetKey = (prefix: string, queue: string) => `${prefix}:${queue}:repeat`;

export function workerId() {
  return `${hostname()}:${process.pid}`;
}

/** Writes this worker's beat (and prunes long-gone workers' fields). */
export async function beat(redis: Redis, prefix: string, id = workerId(), now = Date.now(), scheduleIds?: string[]) {
  const key = heartbeatKey(prefix);
  await redis.hset(key, id, String(now));
  await redis.pexpire(key, PRUNE_AFTER_MS);
  if (scheduleIds) {
    await redis.hset(schedulesKey(prefix), id, JSON.stringify(scheduleIds));
    await redis.pexpire(schedulesKey(prefix), PRUNE_AFTER_MS);
  }
  const all = await redis.hgetall(key);
  const gone = Object.entries(all)
    .filter(([, at]) => now - Number(at) > PRUNE_AFTER_MS)
    .map(([field]) => field);
  if (gone.length) await redis.hdel(key, ...gone);
}

/**
 * Beats now (awaited: the worker counts as live once this resolves) and every `everyMs` while
 * the connection is up; `stop` waits for a beat in flight, then removes this worker's field.
 */
export async function startHeartbeat(
  redis: Redis,
  prefix: string,
  onError: (err: Error) => void,
  everyMs = HEARTBEAT_EVERY_MS,
  scheduleIds?: string[],
) {
  const id = workerId();
  let stopped = false;
  let inFlight: Promise<void> = Promise.resolve();
  const tick = () => {
    // A connection that is down would queue the command (BullMQ-mode connection): skip the beat.
    if (stopped || (redis.status !== 'ready' && redis.status !== 'wait' && redis.status !== 'connecting')) return inFlight;
    inFlight = beat(redis, prefix, id, Date.now(), scheduleIds).catch(onError);
    return inFlight;
  };
  // Never hold the worker's start for long on a Redis that just went away.
  let t0: NodeJS.Timeout | undefined;
  await Promise.race([tick(), new Promise((r) => (t0 = setTimeout(r, 2_000)))]).finally(() => clearTimeout(t0));
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await inFlight;
      if (redis.status === 'ready') {
        await redis.hdel(heartbeatKey(prefix), id).catch(() => {});
        await redis.hdel(schedulesKey(prefix), id).catch(() => {});
      }
    },
  };
}

export interface WorkerHeartbeat {
  /** ok: a worker beat within the threshold; stale: the newest beat is older; missing: no worker ever beat (or all pruned). */
  status: 'ok' | 'stale' | 'missing';
  /** Age of the newest beat in ms, null when there is none. */
  heartbeat_age_ms: number | null;
  /** Workers that beat within the threshold. */
  live_workers: number;
  stale_after_ms: number;
}

export async function readHeartbeat(redis: Redis, prefix: string, now = Date.now()): Promise<WorkerHeartbeat> {
  const all = await redis.hgetall(heartbeatKey(prefix));
  const ages = Object.values(all)
    .map((at) => now - Number(at))
    .filter((a) => Number.isFinite(a));
  if (!ages.length) return { status: 'missing', heartbeat_age_ms: null, live_workers: 0, stale_after_ms: HEARTBEAT_STALE_MS };
  const newest = Math.max(0, Math.min(...ages));
  const live = ages.filter((a) => a <= HEARTBEAT_STALE_MS).length;
  return {
    status: newest <= HEARTBEAT_STALE_MS ? 'ok' : 'stale',
    heartbeat_age_ms: newest,
    live_workers: live,
    stale_after_ms: HEARTBEAT_STALE_MS,
  };
}

export interface WorkerSchedules {
  /** ok: every schedule a live worker keeps is in Redis; missing: some are gone (a wipe, an eviction). */
  status: 'ok' | 'missing';
  missing: string[];
}

/**
 * The job schedulers the workers keep (as they last wrote on their beat) that are not in Redis:
 * after a wipe while the worker stayed connected, the worker puts them back within a minute;
 * until then /api/ready reports them.
 */
export async function readSchedules(redis: Redis, prefix: string, queue: string): Promise<WorkerSchedules> {
  const all = await redis.hgetall(schedulesKey(prefix));
  const ids = [
    ...new Set(
      Object.values(all).flatMap((v) => {
        try {
          const x = JSON.parse(v);
          return Array.isArray(x) ? x.filter((i): i is string => typeof i === 'string') : [];
        } catch {
          return [];
        }
      }),
    ),
  ].sort();
  if (!ids.length) return { status: 'ok', missing: [] };
  const setKey = schedulerSetKey(prefix, queue);
  const scores = await Promise.all(ids.map((id) => redis.zscore(setKey, id)));
  const missing = ids.filter((_, i) => scores[i] === null);
  return { status: missing.length ? 'missing' : 'ok', missing };
}

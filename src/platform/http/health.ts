import type { Db } from '../db';
import type { Redis } from '../redis';
import { HEARTBEAT_STALE_MS, readHeartbeat, readSchedules, type WorkerHeartbeat, type WorkerSchedules } from '../heartbeat';
import { QUEUE_NAME } from '../queue';
import { routes } from './routes';

const READY_CHECK_MS = 1500;

/** `p`, or a rejection once `ms` have passed (the late outcome is ignored). */
function withinMs<T>(p: PromiseLike<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const work = Promise.resolve(p);
  work.catch(() => {});
  return Promise.race([
    work,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

/**
 * GET /api/health and /api/ready. Liveness (/health) never looks at dependencies. Readiness
 * answers within ~1.5 s whatever is down and names each dependency:
 * `{ status, database, redis, worker: { status, heartbeat_age_ms, live_workers, stale_after_ms }, down }`.
 *
 * - database or Redis down → 503 `status: 'unavailable'` (this web process cannot serve);
 * - `worker.schedules`: the job schedules the live workers keep that are gone from Redis (keys
 *   lost while the worker stayed connected); 'worker_schedules' in `down` until the worker
 *   restores them (it checks every 20 s);
 * - both up but no worker heartbeat within the threshold → 200 `status: 'degraded'` with
 *   'worker' in `down`: the web process itself can serve (sales, boards), only background work
 *   (payment polling, mail) waits, so a load balancer must not take the web out for it; alert on it.
 */
export function healthRoutes(deps: { db: Db; redis: Redis; queuePrefix: string; instance?: string }) {
  const router = routes();
  // `instance` (COTAVERDE_INSTANCE, set by `npm start`): lets the starter know it reached its own
  // web process, not another program answering on the same port.
  router.get('/health', 'public', (ctx) => {
    ctx.body = deps.instance ? { status: 'ok', instance: deps.instance } : { status: 'ok' };
  });
  router.get('/ready', 'public', async (ctx) => {
    const unknown: WorkerHeartbeat = { status: 'missing', heartbeat_age_ms: null, live_workers: 0, stale_after_ms: HEARTBEAT_STALE_MS };
    const [dbOk, redisOk, worker, schedules] = await Promise.all([
      withinMs(deps.db.raw('select 1'), READY_CHECK_MS).then(
        () => true,
        () => false,
      ),
      withinMs(deps.redis.ping(), READY_CHECK_MS).then(
        (r) => r === 'PONG',
        () => false,
      ),
      withinMs(readHeartbeat(deps.redis, deps.queuePrefix), READY_CHECK_MS).then(
        (h) => h,
        () => null,
      ),
      withinMs(readSchedules(deps.redis, deps.queuePrefix, QUEUE_NAME), READY_CHECK_MS).then(
        (x): WorkerSchedules | null => x,
        () => null,
      ),
    ]);
    // Redis did not answer: nothing is known about the workers.
    const workerInfo = {
      ...(worker ?? { ...unknown, status: 'unknown' as const }),
      schedules: schedules ?? { status: 'unknown' as const, missing: [] },
    };
    // A live worker whose schedules are gone from Redis (keys lost while connected) runs no sweep.
    const down = [
      ...(dbOk ? [] : ['database']),
      ...(redisOk ? [] : ['redis']),
      ...(workerInfo.status === 'stale' || workerInfo.status === 'missing' ? ['worker'] : []),
      ...(schedules?.status === 'missing' ? ['worker_schedules'] : []),
    ];
    const serving = dbOk && redisOk;
    ctx.status = serving ? 200 : 503;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      status: !serving ? 'unavailable' : down.length ? 'degraded' : 'ready',
      database: dbOk,
      redis: redisOk,
      worker: workerInfo,
      down,
    };
  });
  return router;
}

import Router from '@koa/router';
import type { Db } from '../db';
import type { Redis } from '../redis';
import type { AppState } from './context';

const READY_CHECK_MS = 1500;

/** `p`, or a rejection once `ms` have passed (the late outcome is ignored). */
function withinMs<T>(p: PromiseLike<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const work = Promise.resolve(p);
  work.catch(() => {});
  return Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)))]).finally(() =>
    clearTimeout(timer),
  );
}

/**
 * GET /api/health and /api/ready. Liveness (/health) never looks at dependencies; readiness
 * answers within ~1.5 s whatever is down, and names it: { status, database, redis, down: [...] }.
 */
export function healthRoutes(deps: { db: Db; redis: Redis }) {
  const router = new Router<AppState>({ prefix: '/api' });
  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/ready', async (ctx) => {
    const [dbOk, redisOk] = await Promise.all([
      withinMs(deps.db.raw('select 1'), READY_CHECK_MS).then(() => true, () => false),
      withinMs(deps.redis.ping(), READY_CHECK_MS).then((r) => r === 'PONG', () => false),
    ]);
    const down = [...(dbOk ? [] : ['database']), ...(redisOk ? [] : ['redis'])];
    ctx.status = down.length ? 503 : 200;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = down.length ? { status: 'unavailable', database: dbOk, redis: redisOk, down } : { status: 'ready', database: true, redis: true };
  });
  return router;
}

import Router from '@koa/router';
import type { AppState } from '../platform/http/context';
import { body, requireUser } from '../platform/http/context';
import type { CouponsService } from './service';

/** The customer's store credit (DESIGN §6). */
export function couponsRoutes(coupons: CouponsService) {
  const r = new Router<AppState>({ prefix: '/api' });

  r.get('/coupons/mine', async (ctx) => {
    const user = requireUser(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await coupons.mine(user.id);
  });

  for (const path of ['/coupons/sync', '/me/coupons/sync']) {
    r.post(path, async (ctx) => {
      const user = requireUser(ctx);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await coupons.sync(user.id, (ctx.request as unknown as { body?: unknown }).body === undefined ? undefined : body(ctx));
    });
  }

  return r;
}

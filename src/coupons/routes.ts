import { body, requireUser } from '../platform/http/context';
import type { CouponsService } from './service';
import { routes } from '../platform/http/routes';

/** The customer's store credit (RULES C1–C4). */
export function couponsRoutes(coupons: CouponsService) {
  const r = routes();

  r.get('/coupons/mine', 'customer', async (ctx) => {
    const user = requireUser(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await coupons.mine(user.id);
  });

  for (const path of ['/coupons/sync', '/me/coupons/sync']) {
    r.post(path, 'customer', async (ctx) => {
      const user = requireUser(ctx);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await coupons.sync(user.id, (ctx.request as unknown as { body?: unknown }).body === undefined ? undefined : body(ctx));
    });
  }

  return r;
}

import { body, requireAdmin, requireUser } from '../platform/http/context';
import { adminRoutes, routes } from '../platform/http/routes';
import { createPrizeService } from './prize';
import type { Db } from '../platform/db';

/** The winner's prizes (GET /api/me/prizes) and the store's prize contact in the console (RULES W10). */
export function prizeRoutes(s: { db: Db }) {
  const prizes = createPrizeService({ db: s.db });
  const mine = routes();
  mine.get('/me/prizes', 'customer', async (ctx) => {
    const user = requireUser(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { items: await prizes.mine(user.id) };
  });

  const admin = adminRoutes();
  admin.get('/settings/prize-contact', 'admin', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await prizes.contact();
  });
  admin.put('/settings/prize-contact', 'admin', async (ctx) => {
    const a = requireAdmin(ctx);
    ctx.body = await prizes.updateContact(a.id, body(ctx));
  });
  return [mine, admin];
}

import { body, requireAdmin } from '../platform/http/context';
import { adminRoutes } from '../platform/http/routes';
import { WinnerDrawId, type WinnersService } from './winners';

/** The admin console's winners and their prizes ('/admin/vencedores'; RULES W2, W6). */
export const ADMIN_WINNERS_ROUTES = [
  { method: 'GET', path: '/api/admin/winners' },
  { method: 'GET', path: '/api/admin/winners/:drawId' },
  { method: 'PATCH', path: '/api/admin/winners/:drawId' },
] as const;

export function adminWinnersRoutes(s: { winners: WinnersService }) {
  const r = adminRoutes();

  r.get('/winners', 'admin', async (ctx) => {
    ctx.body = await s.winners.list(ctx.query);
  });
  r.get('/winners/:drawId', 'admin', async (ctx) => {
    ctx.body = await s.winners.get(WinnerDrawId.parse(ctx.params.drawId));
  });
  r.patch('/winners/:drawId', 'admin', async (ctx) => {
    const admin = requireAdmin(ctx);
    ctx.body = await s.winners.updatePrize({ userId: admin.id, via: 'admin' }, WinnerDrawId.parse(ctx.params.drawId), body(ctx));
  });

  return r;
}

import { body, requireAdmin } from '../platform/http/context';
import { HistoryDrawId, type AdminHistoryService } from './admin-history';
import type { OpenBuyersService } from './open-buyers';
import { WinnerDrawId, type WinnersService } from '../results/winners';
import { adminRoutes } from '../platform/http/routes';

/**
 * The admin console's held raffles, active raffle buyers and winners. Mounted in
 * src/http.ts moduleRouters BEFORE adminDrawsRoutes: its `GET /draws/:id` would otherwise take
 * `/draws/history` (and answer 400 'Sorteio inválido.').
 */
export const ADMIN_HISTORY_ROUTES = [
  { method: 'GET', path: '/api/admin/draws/history' },
  { method: 'GET', path: '/api/admin/draws/:id/participants' },
  { method: 'GET', path: '/api/admin/dashboard/open-buyers' },
  { method: 'GET', path: '/api/admin/winners' },
  { method: 'GET', path: '/api/admin/winners/:drawId' },
  { method: 'PATCH', path: '/api/admin/winners/:drawId' },
] as const;

export function adminHistoryRoutes(s: { adminHistory: AdminHistoryService; openBuyers: OpenBuyersService; winners: WinnersService }) {
  const r = adminRoutes();

  r.get('/draws/history', 'admin', async (ctx) => {
    ctx.body = await s.adminHistory.history(ctx.query);
  });
  r.get('/draws/:id/participants', 'admin', async (ctx) => {
    ctx.body = await s.adminHistory.participants(HistoryDrawId.parse(ctx.params.id), ctx.query);
  });

  r.get('/dashboard/open-buyers', 'admin', async (ctx) => {
    ctx.body = await s.openBuyers.openBuyers(ctx.query);
  });

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

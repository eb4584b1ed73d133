import { HistoryDrawId, type AdminHistoryService } from './admin-history';
import type { OpenBuyersService } from './open-buyers';
import { adminRoutes } from '../platform/http/routes';

/**
 * The admin console's held raffles and active raffle buyers (the winners' routes are
 * results/winners-routes.ts). Mounted in
 * src/http.ts moduleRouters BEFORE adminDrawsRoutes: its `GET /draws/:id` would otherwise take
 * `/draws/history` (and answer 400 'Sorteio inválido.').
 */
export const ADMIN_HISTORY_ROUTES = [
  { method: 'GET', path: '/api/admin/draws/history' },
  { method: 'GET', path: '/api/admin/draws/:id/participants' },
  { method: 'GET', path: '/api/admin/dashboard/open-buyers' },
] as const;

export function adminHistoryRoutes(s: { adminHistory: AdminHistoryService; openBuyers: OpenBuyersService }) {
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

  return r;
}

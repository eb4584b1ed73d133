import { body, requireAdmin } from '../platform/http/context';
import type { AdminDrawsService } from './admin';
import { AdminDrawId } from './admin-schemas';
import { adminRoutes } from '../platform/http/routes';

/**
 * The admin console's draws API. Every route is listed in ADMIN_DRAWS_ROUTES: the route
 * table test calls each one anonymously (401), as a customer (403) and as an admin, and fails when
 * the router holds a route the list does not name (or the reverse).
 */
export const ADMIN_DRAWS_ROUTES = [
  { method: 'GET', path: '/api/admin/dashboard/summary' },
  { method: 'POST', path: '/api/admin/dashboard/new' },
  { method: 'POST', path: '/api/admin/dashboard/ticket-price' },
  { method: 'GET', path: '/api/admin/draws' },
  { method: 'POST', path: '/api/admin/draws' },
  { method: 'GET', path: '/api/admin/draws/:id' },
  { method: 'PUT', path: '/api/admin/draws/:id' },
  { method: 'PATCH', path: '/api/admin/draws/:id' },
  { method: 'DELETE', path: '/api/admin/draws/:id' },
  { method: 'GET', path: '/api/admin/draws/:id/board' },
] as const;

export function adminDrawsRoutes(s: { adminDraws: AdminDrawsService }) {
  const r = adminRoutes();
  const a = s.adminDraws;

  r.get('/dashboard/summary', 'admin', async (ctx) => {
    ctx.body = await a.summary();
  });
  r.post('/dashboard/new', 'admin', async (ctx) => {
    ctx.status = 201;
    ctx.body = await a.newSeries(requireAdmin(ctx).id, body(ctx));
  });
  r.post('/dashboard/ticket-price', 'admin', async (ctx) => {
    ctx.body = await a.setTicketPrice(requireAdmin(ctx).id, body(ctx));
  });

  r.get('/draws', 'admin', async (ctx) => {
    ctx.body = await a.list(ctx.query);
  });
  r.post('/draws', 'admin', async (ctx) => {
    ctx.status = 201;
    ctx.body = await a.create(requireAdmin(ctx).id, body(ctx));
  });
  r.get('/draws/:id', 'admin', async (ctx) => {
    ctx.body = await a.get(AdminDrawId.parse(ctx.params.id));
  });
  r.put('/draws/:id', 'admin', async (ctx) => {
    ctx.body = await a.update(requireAdmin(ctx).id, AdminDrawId.parse(ctx.params.id), body(ctx));
  });
  r.patch('/draws/:id', 'admin', async (ctx) => {
    ctx.body = await a.setStatus(requireAdmin(ctx).id, AdminDrawId.parse(ctx.params.id), body(ctx));
  });
  r.delete('/draws/:id', 'admin', async (ctx) => {
    ctx.body = await a.remove(requireAdmin(ctx).id, AdminDrawId.parse(ctx.params.id));
  });
  r.get('/draws/:id/board', 'admin', async (ctx) => {
    ctx.body = await a.board(AdminDrawId.parse(ctx.params.id));
  });

  return r;
}

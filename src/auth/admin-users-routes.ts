import { body, requireAdmin } from '../platform/http/context';
import { AdminUserId, type AdminUsersService } from './admin-users';
import { adminRoutes } from '../platform/http/routes';

/**
 * The admin console's customer registry, number assignment and customers with active balance
 * (RULES N6, U4, U5). Mounted through src/http.ts moduleRouters, so the generated access test (tests/platform/route-access.test.ts) calls each one
 * anonymously (401) and as a customer (403).
 */
export const ADMIN_USERS_ROUTES = [
  { method: 'GET', path: '/api/admin/users' },
  { method: 'POST', path: '/api/admin/users' },
  { method: 'PUT', path: '/api/admin/users/:id' },
  { method: 'DELETE', path: '/api/admin/users/:id' },
  { method: 'POST', path: '/api/admin/users/:id/assign-numbers' },
  { method: 'GET', path: '/api/admin/clients/active' },
] as const;

export function adminUsersRoutes(s: { adminUsers: AdminUsersService }) {
  const r = adminRoutes();
  const a = s.adminUsers;
  const actor = (ctx: Parameters<typeof requireAdmin>[0]) => ({ userId: requireAdmin(ctx).id, via: 'admin' as const });

  r.get('/users', 'admin', async (ctx) => {
    ctx.body = await a.list(ctx.query);
  });
  r.post('/users', 'admin', async (ctx) => {
    ctx.status = 201;
    ctx.body = await a.create(actor(ctx), body(ctx));
  });
  r.put('/users/:id', 'admin', async (ctx) => {
    ctx.body = await a.update(actor(ctx), AdminUserId.parse(ctx.params.id), body(ctx));
  });
  r.delete('/users/:id', 'admin', async (ctx) => {
    ctx.body = await a.remove(actor(ctx), AdminUserId.parse(ctx.params.id));
  });
  r.post('/users/:id/assign-numbers', 'admin', async (ctx) => {
    ctx.body = await a.assignNumbers(actor(ctx), AdminUserId.parse(ctx.params.id), body(ctx));
  });
  r.get('/clients/active', 'admin', async (ctx) => {
    ctx.body = await a.activeClients(ctx.query);
  });

  return r;
}

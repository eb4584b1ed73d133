import Router from '@koa/router';
import type { AppState } from '../platform/http/context';
import { requireAdmin } from '../platform/http/context';
import type { OpsService } from './service';

/** The operations API of the admin console (issue 10). */
export const OPS_ADMIN_ROUTES = [{ method: 'POST', path: '/api/admin/ops/link' }] as const;

export function opsAdminRoutes(s: { ops: OpsService }) {
  const r = new Router<AppState>({ prefix: '/api/admin' });
  r.use(async (ctx, next) => {
    requireAdmin(ctx);
    ctx.set('Cache-Control', 'no-store');
    await next();
  });

  // A one-time address (valid 60 s) that opens the queue dashboard under /ops (ops/dashboard.ts).
  // No body: anything sent is ignored.
  r.post('/ops/link', (ctx) => {
    ctx.body = s.ops.issueLink(requireAdmin(ctx).id);
  });

  return r;
}

import { requireAdmin } from '../platform/http/context';
import type { OpsService } from './service';
import type { FiguresService } from './figures';
import { adminRoutes } from '../platform/http/routes';

/** The operations API of the admin console. */
export const OPS_ADMIN_ROUTES = [
  { method: 'POST', path: '/api/admin/ops/link' },
  { method: 'GET', path: '/api/admin/dashboard/figures' },
] as const;

export function opsAdminRoutes(s: { ops: OpsService; figures: FiguresService }) {
  const r = adminRoutes();

  // The dashboard's charts: ?days= (7–90, default 30), ?draws= (1–50, default 20).
  r.get('/dashboard/figures', 'admin', async (ctx) => {
    ctx.body = await s.figures.figures(ctx.query);
  });

  // A one-time address (valid 60 s) that opens the queue dashboard under /ops (ops/dashboard.ts).
  // No body: anything sent is ignored.
  r.post('/ops/link', 'admin', (ctx) => {
    ctx.body = s.ops.issueLink(requireAdmin(ctx).id);
  });

  return r;
}

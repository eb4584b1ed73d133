import { requireUser, adminRouter } from '../platform/http/context';
import type { Config } from '../platform/config';
import { adminAccessRefusal } from '../auth/access';
import type { OpsService } from './service';
import type { FiguresService } from './figures';

/** The operations API of the admin console. */
export const OPS_ADMIN_ROUTES = [
  { method: 'POST', path: '/api/admin/ops/link' },
  { method: 'GET', path: '/api/admin/dashboard/figures' },
] as const;

export function opsAdminRoutes(s: { ops: OpsService; figures: FiguresService; config: Pick<Config, 'adminMfaRequired'> }) {
  const r = adminRouter();

  // The dashboard's charts: ?days= (7–90, default 30), ?draws= (1–50, default 20).
  r.get('/dashboard/figures', async (ctx) => {
    ctx.body = await s.figures.figures(ctx.query);
  });

  // A one-time address (valid 60 s) that opens the queue dashboard under /ops (ops/dashboard.ts).
  // No body: anything sent is ignored.
  // The admin access rule once more here (adminRouter() applies it too): this link opens /ops,
  // which is outside /api/admin.
  r.post('/ops/link', (ctx) => {
    const user = requireUser(ctx);
    const refusal = adminAccessRefusal(user, s.config);
    if (refusal) throw refusal;
    ctx.body = s.ops.issueLink(user.id);
  });

  return r;
}

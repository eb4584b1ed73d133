import { requireAdmin, adminRouter } from '../platform/http/context';
import type { OpsService } from './service';

/** The operations API of the admin console. */
export const OPS_ADMIN_ROUTES = [{ method: 'POST', path: '/api/admin/ops/link' }] as const;

export function opsAdminRoutes(s: { ops: OpsService }) {
  const r = adminRouter();

  // A one-time address (valid 60 s) that opens the queue dashboard under /ops (ops/dashboard.ts).
  // No body: anything sent is ignored.
  r.post('/ops/link', (ctx) => {
    ctx.body = s.ops.issueLink(requireAdmin(ctx).id);
  });

  return r;
}

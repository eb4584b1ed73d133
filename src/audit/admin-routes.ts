import { adminRouter } from '../platform/http/context';
import type { AuditLogService } from './service';

/** Every route of this router (the route table test walks src/http.ts moduleRouters as well). */
export const ADMIN_AUDIT_ROUTES = [{ method: 'GET', path: '/api/admin/audit' }] as const;

/** The audit log of the admin console (RULES U5): `GET /api/admin/audit?entity=&entity_id=&action=&limit=&offset=`, newest first. */
export function adminAuditRoutes(s: { auditLog: AuditLogService }) {
  const r = adminRouter();
  r.get('/audit', async (ctx) => {
    ctx.body = await s.auditLog.list(ctx.query);
  });

  return r;
}

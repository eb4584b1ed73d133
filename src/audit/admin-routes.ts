import type { AuditLogService } from './service';
import { adminRoutes } from '../platform/http/routes';

/** Every route of this router (the generated access test walks every mounted route as well). */
export const ADMIN_AUDIT_ROUTES = [{ method: 'GET', path: '/api/admin/audit' }] as const;

/** The audit log of the admin console (RULES U5): `GET /api/admin/audit?entity=&entity_id=&action=&limit=&offset=`, newest first. */
export function adminAuditRoutes(s: { auditLog: AuditLogService }) {
  const r = adminRoutes();
  r.get('/audit', 'admin', async (ctx) => {
    ctx.body = await s.auditLog.list(ctx.query);
  });

  return r;
}

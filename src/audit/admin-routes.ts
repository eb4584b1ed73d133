import { adminRouter } from '../platform/http/context';
import type { Db } from '../platform/db';
import { createAuditLogService } from './service';

/** Every route of this router (the route table test walks src/http.ts moduleRouters as well). */
export const ADMIN_AUDIT_ROUTES = [{ method: 'GET', path: '/api/admin/audit' }] as const;

/** The audit log of the admin console (issue 9): `GET /api/admin/audit?entity=&entity_id=&action=&limit=&offset=`, newest first. */
export function adminAuditRoutes(s: { db: Db }) {
  const r = adminRouter();
  // A read-only service over audit_log (entries are written by each module's own service).
  const log = createAuditLogService({ db: s.db });

  r.get('/audit', async (ctx) => {
    ctx.body = await log.list(ctx.query);
  });

  return r;
}

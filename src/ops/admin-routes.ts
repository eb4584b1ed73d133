import { z } from 'zod';
import { requireAdmin } from '../platform/http/context';
import type { OpsService } from './service';
import type { FiguresService } from './figures';
import type { BackupsService } from './backups';
import { adminRoutes } from '../platform/http/routes';

/** GET /api/admin/ops/backups: ?recent= how many of the latest runs to list (1–10, default 10). */
export const BackupsQuery = z
  .object({
    recent: z.coerce
      .number({ error: 'Informe quantas execuções listar.' })
      .int('Use um número inteiro.')
      .min(1, 'No mínimo 1.')
      .max(10, 'No máximo 10.')
      .default(10),
  })
  .strict();

/** The operations API of the admin console. */
export const OPS_ADMIN_ROUTES = [
  { method: 'POST', path: '/api/admin/ops/link' },
  { method: 'GET', path: '/api/admin/dashboard/figures' },
  { method: 'GET', path: '/api/admin/ops/backups' },
] as const;

export function opsAdminRoutes(s: { ops: OpsService; figures: FiguresService; backups: BackupsService }) {
  const r = adminRoutes();

  // The console's operations view: the last backup (ok or failed), the last good one, the latest runs.
  r.get('/ops/backups', 'admin', async (ctx) => {
    const q = BackupsQuery.parse(ctx.query);
    const status = await s.backups.status();
    ctx.body = { ...status, recent: status.recent.slice(0, q.recent) };
  });

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

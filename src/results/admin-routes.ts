import { body, requireAdmin } from '../platform/http/context';
import { AdminDrawId } from '../draws/admin-schemas';
import type { ResultsService } from './service';
import { adminRoutes } from '../platform/http/routes';

/**
 * The admin console's 'Registrar resultado' (RULES W4): preview a result for a closed draw,
 * record it (the same service as the CLI and the job: the server computes the winner), or fetch
 * it from the results service and preview it. The route table test walks these too.
 */
export const ADMIN_RESULTS_ROUTES = [
  { method: 'POST', path: '/api/admin/draws/:id/result/preview' },
  { method: 'POST', path: '/api/admin/draws/:id/result' },
  { method: 'POST', path: '/api/admin/draws/:id/result/fetch' },
] as const;

export function adminResultsRoutes(s: { results: ResultsService }) {
  const r = adminRoutes();
  r.post('/draws/:id/result/preview', 'admin', async (ctx) => {
    ctx.body = await s.results.preview(AdminDrawId.parse(ctx.params.id), body(ctx));
  });
  r.post('/draws/:id/result/fetch', 'admin', async (ctx) => {
    ctx.body = await s.results.fetchPreview(AdminDrawId.parse(ctx.params.id), body(ctx));
  });
  r.post('/draws/:id/result', 'admin', async (ctx) => {
    const admin = requireAdmin(ctx);
    ctx.status = 201;
    ctx.body = await s.results.recordForDraw(admin.id, AdminDrawId.parse(ctx.params.id), body(ctx));
  });
  return r;
}

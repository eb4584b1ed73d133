import { Id } from '../platform/validation';
import type { ResultsService } from './service';
import { routes } from '../platform/http/routes';

const DrawId = Id('Sorteio inválido.');

/** GET /api/draws/{id}/result (public, RULES W2-W3): the contest, its 20 numbers, the walk and the winner's initials. */
export function drawResultRoutes(s: { results: ResultsService }) {
  const r = routes();
  r.get('/draws/:id/result', 'public', async (ctx) => {
    ctx.body = await s.results.drawResult(DrawId.parse(ctx.params.id));
    // A decided result changes only by an explicit correction: a short public cache is fine.
    ctx.set('Cache-Control', 'public, max-age=30');
  });
  return r;
}

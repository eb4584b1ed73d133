import type Koa from 'koa';
import { z } from 'zod';
import type { AppState } from '../platform/http/context';
import { Id } from '../platform/validation';
import { DomainError } from '../platform/errors';
import { routes } from '../platform/http/routes';
import type { DrawsService } from '../draws/service';
import type { LiveBoards } from './live';

const DrawId = Id('Sorteio inválido.');

/**
 * GET /api/draws/{id}/events: the draw's live board (server-sent events, live/live.ts). Public
 * like the board itself; mounted with the public reads. `Last-Event-ID` (the header EventSource
 * sends when it reconnects, or the `last_event_id` query parameter) resumes.
 */
export function drawsLiveRoutes(s: { draws: DrawsService; live: LiveBoards }) {
  const r = routes();
  const LiveQuery = z.object({ last_event_id: z.string().max(40).optional() });

  const DrawIds = z
    .string({ error: 'Informe os sorteios.' })
    .max(200)
    .transform((v): unknown[] => v.split(','))
    .pipe(z.array(DrawId).min(1, 'Informe os sorteios.').max(12, 'No máximo 12 sorteios por conexão.'))
    .transform((ids): number[] => [...new Set(ids as number[])]);
  const ManyQuery = z.object({ ids: DrawIds });

  async function stream(ctx: Koa.ParameterizedContext<AppState>, drawIds: number[], lastEventId: string | undefined) {
    // 404 for a draw that does not exist (from the read cache).
    for (const id of drawIds) await s.draws.boardJson(id);
    // Per client address (ctx.ip honours the trusted proxy hops): one client cannot take every place.
    const outcome = await s.live.open(drawIds, ctx.req, ctx.res, lastEventId, ctx.ip);
    if (outcome === 'client_full') {
      ctx.set('Retry-After', '30');
      throw new DomainError(
        'rate_limited',
        'too_many_streams',
        'Você já tem muitas conexões ao vivo abertas. Feche algumas abas; o quadro continua se atualizando a cada 15 segundos.',
      );
    }
    if (outcome === 'full') {
      ctx.set('Retry-After', '30');
      throw new DomainError(
        'unavailable',
        'too_many_streams',
        'Muitas conexões ao vivo neste servidor agora. O quadro continua se atualizando a cada 15 segundos.',
      );
    }
    if (outcome === 'unavailable') {
      ctx.set('Retry-After', '5');
      throw new DomainError(
        'unavailable',
        'live_unavailable',
        'As atualizações ao vivo estão indisponíveis agora. O quadro continua se atualizando a cada 15 segundos.',
      );
    }
    // The stream is written straight to the socket (live/live.ts): Koa must not answer.
    ctx.status = 200;
    ctx.respond = false;
  }

  // Several draws on one connection (the home page's cards; a browser opens few connections per
  // site): boards then changes, without event ids (a reconnection gets the boards again).
  r.get('/draws/events', 'public', async (ctx) => {
    const { ids } = ManyQuery.parse(ctx.query);
    await stream(ctx, ids, undefined);
  });

  r.get('/draws/:id/events', 'public', async (ctx) => {
    const drawId = DrawId.parse(ctx.params.id);
    const { last_event_id } = LiveQuery.parse(ctx.query);
    await stream(ctx, [drawId], ctx.get('last-event-id') || last_event_id || undefined);
  });

  return r;
}

import type Koa from 'koa';
import { z } from 'zod';
import type { AppState } from '../platform/http/context';
import { Id } from '../platform/validation';
import { body, requireUser } from '../platform/http/context';
import { sendCachedJson } from '../platform/read-cache';
import { sendUserRead, type UserReadCache } from '../platform/user-read-cache';
import type { DrawsService } from './service';
import type { ReservationsService } from './reservations';
import type { VouchersService } from './vouchers';
import { reservationNumbers } from './serializers';
import type { MyReservations } from '../shared/api/draws';
import type { LiveBoards } from '../live/live';
import { DomainError } from '../platform/errors';
import { reservationsTotal } from '../platform/metrics';
import { routes } from '../platform/http/routes';

const DrawId = Id('Sorteio inválido.');
const NumbersQuery = z.object({ draw_id: DrawId });
const MineQuery = z.object({ active: z.enum(['0', '1', 'true', 'false']).optional() });

/**
 * Public reads (the same answer for every caller), served from the ≤ 1 s read cache as-is;
 * mounted before the body parser and the bearer lookup, like catalogueReadRoutes.
 */
export function drawsReadRoutes(draws: DrawsService) {
  const r = routes();

  r.get('/draws', 'public', async (ctx) => {
    sendCachedJson(ctx, await draws.listJson(ctx.query));
  });

  // The spec's fallback paths of the closed list (storefront §7) and of the open-draw lookups
  // (account §7): the list filtered by that status (before /draws/:id, which would read the word as an id).
  for (const status of ['open', 'closed'] as const) {
    r.get(`/draws/${status}`, 'public', async (ctx) => {
      sendCachedJson(ctx, await draws.listJson({ ...ctx.query, status }));
    });
  }

  r.get('/draws/:id', 'public', async (ctx) => {
    sendCachedJson(ctx, await draws.getJson(DrawId.parse(ctx.params.id)));
  });

  // The board (polled every 15 s by every visitor).
  r.get('/draws/:id/numbers', 'public', async (ctx) => {
    sendCachedJson(ctx, await draws.boardJson(DrawId.parse(ctx.params.id)));
  });

  r.get('/numbers', 'public', async (ctx) => {
    const { draw_id } = NumbersQuery.parse(ctx.query);
    sendCachedJson(ctx, await draws.boardJson(draw_id));
  });

  return r;
}

/**
 * GET /api/draws/{id}/events: the draw's live board (server-sent events, draws/live.ts). Public
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
      throw new DomainError('unavailable', 'too_many_streams', 'Muitas conexões ao vivo neste servidor agora. O quadro continua se atualizando a cada 15 segundos.');
    }
    if (outcome === 'unavailable') {
      ctx.set('Retry-After', '5');
      throw new DomainError('unavailable', 'live_unavailable', 'As atualizações ao vivo estão indisponíveis agora. O quadro continua se atualizando a cada 15 segundos.');
    }
    // The stream is written straight to the socket (draws/live.ts): Koa must not answer.
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

export function drawsRoutes(s: { draws: DrawsService; reservations: ReservationsService; vouchers: VouchersService; userReads: UserReadCache }) {
  const r = routes();

  r.get('/vouchers/remaining', 'customer', async (ctx) => {
    const user = requireUser(ctx);
    await sendUserRead(ctx, s.userReads, user.id, () => s.vouchers.remaining(user.id, ctx.query));
  });

  r.post('/reservations', 'customer', async (ctx) => {
    const user = requireUser(ctx);
    try {
      ctx.body = await s.reservations.reserve(user.id, body(ctx));
    } catch (e) {
      if (e instanceof DomainError || e instanceof z.ZodError) reservationsTotal.inc({ outcome: e instanceof DomainError && e.kind === 'conflict' ? 'conflict' : 'refused' });
      throw e;
    }
    ctx.status = 201;
    reservationsTotal.inc({ outcome: 'created' });
  });

  r.get('/me/reservations', 'customer', async (ctx) => {
    const user = requireUser(ctx);
    const { active } = MineQuery.parse(ctx.query);
    await sendUserRead(ctx, s.userReads, user.id, async () => {
      const items = await s.reservations.listMine(user.id, active === '1' || active === 'true');
      const answer: MyReservations = { items, reservations: items.flatMap(reservationNumbers) };
      return answer;
    });
  });

  r.post('/vouchers/consume', 'customer', async (ctx) => {
    const user = requireUser(ctx);
    ctx.body = await s.vouchers.consume(user.id, body(ctx));
  });

  return r;
}

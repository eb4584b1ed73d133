import { z } from 'zod';
import { Id } from '../platform/validation';
import { body, requireUser } from '../platform/http/context';
import { sendCachedJson } from '../platform/read-cache';
import { sendUserRead, type UserReadCache } from '../platform/user-read-cache';
import type { DrawsService } from './service';
import type { ReservationsService } from './reservations';
import type { VouchersService } from './vouchers';
import { reservationNumbers } from './serializers';
import type { MyReservations } from '../shared/api/draws';
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

export function drawsRoutes(s: {
  draws: DrawsService;
  reservations: ReservationsService;
  vouchers: VouchersService;
  userReads: UserReadCache;
}) {
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
      if (e instanceof DomainError || e instanceof z.ZodError)
        reservationsTotal.inc({ outcome: e instanceof DomainError && e.kind === 'conflict' ? 'conflict' : 'refused' });
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

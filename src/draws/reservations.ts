import { z } from 'zod';
import type { Db, Trx } from '../platform/db';
import { errors } from '../platform/errors';
import { Id } from '../platform/validation';
import type { Logger } from '../platform/logger';
import type { JobQueue } from '../platform/queue';
import type { RateLimits } from '../platform/rate-limit';
import { readAppConfig } from '../platform/app-config';
import * as q from './queries';
import type { Reservation, ReservationStatus } from '../shared/api/draws';
import { iso } from '../shared/iso';
import { countOf } from '../shared/plural';
import type { DrawsService } from './service';
import { releaseReservation } from './sales';
import { lockForSale } from './locks';

const numbersField = z
  .array(z.number({ error: 'Os números devem ser inteiros.' }).int('Os números devem ser inteiros.').min(0, 'Número fora da tabela.'), {
    error: 'Informe os números.',
  })
  .min(1, 'Selecione pelo menos um número.')
  .max(1000, 'Números demais.')
  .refine((a) => new Set(a).size === a.length, 'Números repetidos na seleção.');

export const ReserveCommand = z.object({
  draw_id: Id('Informe o sorteio.'),
  numbers: numbersField,
});

function numbersConflict(conflicts: number[]) {
  return errors.conflict(
    'numbers_conflict',
    `Alguns números ficaram indisponíveis/reservados: ${conflicts.map((n) => String(n).padStart(2, '0')).join(', ')}`,
    {
      conflicts,
    },
  );
}

export type ReservationView = Reservation;

export function serializeReservation(r: {
  id: number;
  draw_id: number;
  numbers: number[];
  status: string;
  expires_at: Date;
  created_at: Date;
}): ReservationView {
  return {
    id: r.id,
    reservationId: r.id,
    reservation_id: r.id,
    draw_id: r.draw_id,
    numbers: [...r.numbers].sort((a, b) => a - b),
    status: r.status as ReservationStatus,
    expires_at: iso(r.expires_at),
    reserved_until: iso(r.expires_at),
    created_at: iso(r.created_at),
  };
}

/**
 * The caps of a hold (RULES R5, N6), under the (draw, user) lock: at most two selections' worth
 * held at once, and owned + held + requested within max_per_user.
 */
async function checkHoldLimits(trx: Trx, d: q.DrawRow, o: { userId: number; numbers: number[]; maxSelection?: number }) {
  // Whatever max_per_user is, nobody sits on more than two selections' worth of one board.
  if (o.maxSelection) {
    const held = await q.heldCount(trx, d.id, o.userId);
    const cap = o.maxSelection * 2;
    if (held + o.numbers.length > cap) {
      throw errors.conflict(
        'hold_limit',
        `Você já tem ${countOf(held, 'número reservado', 'números reservados')} neste sorteio; o máximo ao mesmo tempo é ${cap}. Conclua ou aguarde uma reserva antes de reservar mais.`,
        {
          max_held: cap,
          held,
        },
      );
    }
  }
  if (d.max_per_user > 0) {
    const [owned, held] = await Promise.all([q.ownedCount(trx, d.id, o.userId), q.heldCount(trx, d.id, o.userId)]);
    if (owned + held + o.numbers.length > d.max_per_user) {
      throw errors.conflict('limit_exceeded', `Limite de ${countOf(d.max_per_user, 'número', 'números')} por pessoa neste sorteio.`, {
        max: d.max_per_user,
        owned,
        held,
      });
    }
  }
}

export interface ReservationsService {
  reserve(userId: number, input: unknown): Promise<ReservationView>;
  /** Holds numbers inside the caller's transaction (autopay, payments reuse it). */
  holdInTransaction(
    trx: Trx,
    o: { userId: number; drawId: number; numbers: number[]; ttlMinutes: number; source?: 'user' | 'autopay'; maxSelection?: number },
  ): Promise<{ id: number; expires_at: Date; numbers: number[]; draw_id: number; status: string; created_at: Date }>;
  /** Releases one reservation if it is active and past its hold; idempotent. */
  expire(reservationId: number): Promise<boolean>;
  /** Releases every active reservation past its hold; idempotent. */
  /**
   * Releases every active hold past its time. A recovery run (Redis came back and
   * may have lost the delayed jobs) also schedules again the expiry job of every
   * hold still running, so each ends on time rather than at a later sweep.
   */
  sweep(opts?: { recovery?: boolean }): Promise<number>;
  listMine(userId: number, activeOnly: boolean): Promise<ReservationView[]>;
  scheduleExpiry(reservationId: number, expiresAt: Date): Promise<void>;
  /**
   * Sets a hold's end inside the caller's transaction: payments extends the hold to its PIX's
   * expiry (RULES R4). The caller holds the reservation's row lock and schedules the expiry job.
   */
  extendHoldInTransaction(trx: Trx, reservationId: number, expiresAt: Date | string): Promise<void>;
}

export function createReservationsService(deps: {
  db: Db;
  queue: JobQueue;
  logger: Logger;
  rateLimits: RateLimits;
  draws: DrawsService;
  /** A reservation ended without its PIX (wired in services.ts: payments cancels that PIX). */
  onReservationEnded?: (reservationId: number, reason: string) => Promise<unknown>;
}): ReservationsService {
  const { db } = deps;

  const service: ReservationsService = {
    async extendHoldInTransaction(trx, reservationId, expiresAt) {
      await trx('reservations').where({ id: reservationId }).update({ expires_at: expiresAt, updated_at: trx.fn.now() });
    },

    async holdInTransaction(trx, o) {
      const sorted = [...o.numbers].sort((a, b) => a - b);
      // RULES N4 for a hold: the draw FOR SHARE, (draw, user), then the requested cells, all or
      // nothing. SKIP LOCKED: a cell locked by another request in flight is being taken (or
      // released) right now, so it is a conflict too, instead of a wait: under contention those
      // waits queued every pooled connection behind the few requests that could win.
      const { draw, cells } = await lockForSale(trx, {
        hold: true,
        drawIds: [o.drawId],
        numbers: sorted,
        user: { id: o.userId },
        guard: async (d) => {
          if (d.status !== 'open') throw errors.conflict('draw_closed', 'Este sorteio não está mais aberto.');
          const outOfRange = o.numbers.filter((n) => n >= d.total_numbers);
          if (outOfRange.length)
            throw errors.validation('number_out_of_range', `Número fora da tabela: ${outOfRange.join(', ')}.`, { conflicts: outOfRange });
          if (o.maxSelection && o.numbers.length > o.maxSelection)
            throw errors.validation(
              'too_many_numbers',
              `Você pode reservar no máximo ${countOf(o.maxSelection, 'número', 'números')} por vez.`,
            );
          await checkHoldLimits(trx, d, o);
        },
      });
      if (!draw) throw errors.notFound('draw_not_found', 'Sorteio não encontrado.');
      const free = new Set(cells.filter((c) => c.status === 'available').map((c) => c.n));
      const conflicts = sorted.filter((n) => !free.has(n));
      if (conflicts.length) throw numbersConflict(conflicts);
      const [res] = await trx('reservations')
        .insert({
          user_id: o.userId,
          draw_id: draw.id,
          numbers: sorted,
          source: o.source ?? 'user',
          expires_at: trx.raw(`now() + make_interval(mins => ?)`, [o.ttlMinutes]),
        })
        .returning(['id', 'expires_at', 'numbers', 'draw_id', 'status', 'created_at']);
      await trx('draw_numbers')
        .where({ draw_id: draw.id, status: 'available' })
        .whereIn('n', sorted)
        .update({ status: 'reserved', reservation_id: res.id, updated_at: trx.fn.now() });
      return res;
    },

    async reserve(userId, input) {
      const cmd = ReserveCommand.parse(input);
      await deps.rateLimits.hit('reservations', `user:${userId}`);
      const cfg = await readAppConfig(db);
      // A number already reserved or sold is a conflict whatever happens next: refuse
      // without a lock. Under contention most requests lose, and otherwise each would
      // queue for the contested cells' row locks only to find them taken (a convoy that
      // held every pooled connection). Other refusals (draw closed, out of range, too
      // many) keep their precedence; the locked path below decides everything else.
      let pre = await q.takenNumbers(db, cmd.draw_id, cmd.numbers);
      if (pre?.taken.length) {
        // Cells of holds already past their time are reclaimed (each released by the same path
        // as the expiry job): a stopped worker never freezes a board.
        const stale = await q.staleHoldsAmong(db, cmd.draw_id, pre.taken);
        for (const reservationId of stale) await service.expire(reservationId);
        if (stale.length) pre = await q.takenNumbers(db, cmd.draw_id, cmd.numbers);
      }
      if (
        pre?.taken.length &&
        pre.status === 'open' &&
        cmd.numbers.length <= cfg.max_numbers_per_selection &&
        cmd.numbers.every((n) => n < pre.total_numbers)
      ) {
        throw numbersConflict(pre.taken);
      }
      const res = await db.transaction((trx) =>
        service.holdInTransaction(trx, {
          userId,
          drawId: cmd.draw_id,
          numbers: cmd.numbers,
          ttlMinutes: cfg.reservation_ttl_minutes,
          maxSelection: cfg.max_numbers_per_selection,
        }),
      );
      deps.draws.invalidateBoard(res.draw_id);
      await service.scheduleExpiry(res.id, res.expires_at);
      return serializeReservation(res);
    },

    async scheduleExpiry(reservationId, expiresAt) {
      const delay = Math.max(0, new Date(expiresAt).getTime() - Date.now()) + 500;
      // One delayed job per (reservation, expiry time): an extended hold gets a new job.
      await deps.queue
        .enqueue(
          'reservation.expire',
          { reservationId },
          { jobId: `reservation-expire-${reservationId}-${new Date(expiresAt).getTime()}`, delay },
        )
        .catch((e) =>
          deps.logger.warn(
            { reservationId, err: (e as Error).message },
            'could not schedule reservation expiry; the sweep will release it',
          ),
        );
    },

    async expire(reservationId) {
      const drawId = await db.transaction(async (trx) => {
        const { reservation: r } = await lockForSale(trx, { reservationId, drawIds: [] });
        if (!r || r.status !== 'active' || new Date(r.expires_at).getTime() > Date.now()) return null;
        return (await releaseReservation(trx, reservationId, 'expired')) ?? r.draw_id;
      });
      if (drawId == null) return false;
      deps.draws.invalidateBoard(drawId);
      // Its pending PIX is never shown again and is cancelled at the provider.
      await deps.onReservationEnded?.(reservationId, 'reserva expirada antes do pagamento');
      return true;
    },

    async sweep(opts = {}) {
      const due: Array<{ id: number }> = await db('reservations')
        .where({ status: 'active' })
        .where('expires_at', '<=', db.fn.now())
        .select('id')
        .limit(1000);
      let released = 0;
      for (const r of due) if (await service.expire(r.id)) released++;
      if (released) deps.logger.info({ released }, 'reservation sweep released holds');
      if (opts.recovery) {
        const running: Array<{ id: number; expires_at: Date }> = await db('reservations')
          .where({ status: 'active' })
          .where('expires_at', '>', db.fn.now())
          .select('id', 'expires_at')
          .limit(5000);
        // Same job id per (reservation, expiry): one still delayed in Redis is kept as is.
        for (const r of running) await service.scheduleExpiry(r.id, r.expires_at);
        deps.logger.info({ rescheduled: running.length }, 'reservation sweep rebuilt expiry jobs');
      }
      return released;
    },

    async listMine(userId, activeOnly) {
      const qb = db('reservations').where({ user_id: userId }).orderBy('id', 'desc').limit(200);
      if (activeOnly) qb.where({ status: 'active' }).where('expires_at', '>', db.fn.now());
      const rows = await qb.select('id', 'draw_id', 'numbers', 'status', 'expires_at', 'created_at');
      return rows.map(serializeReservation);
    },
  };
  return service;
}

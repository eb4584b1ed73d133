import type { Conn, Trx } from '../platform/db';
import { readAppConfig } from '../platform/app-config';
import type { DrawRow } from '../draws/queries';
import { holdCells, lockCells } from '../draws/sales';

/** How long autopay holds a new draw's captive numbers for the charge (app_config `autopay_hold_minutes`). */
export const AUTOPAY_HOLD_MINUTES_DEFAULT = 30;

export async function autopayHoldMinutes(conn: Conn): Promise<number> {
  const row = await conn('app_config').where({ key: 'autopay_hold_minutes' }).first('value');
  const v = Number(row?.value);
  return Number.isInteger(v) && v >= 1 && v <= 24 * 60 ? v : AUTOPAY_HOLD_MINUTES_DEFAULT;
}

interface ProfileClaim {
  profile_id: number;
  user_id: number;
  numbers: number[];
}

export interface HoldOutcome {
  drawId: number;
  held: number;
  skipped: number;
  numbers: number;
}

/**
 * RULES A2, in the transaction that opens the draw (a draw-opened hook, wired in services.ts): when the draw
 * belongs to the main series (app config main_infoproduct_id), every active profile with a saved
 * card gets its captive numbers that are free held for it (a reservation with source 'autopay'
 * until the hold's end) and one autopay run (UNIQUE profile, draw): 'held', or 'skipped' when
 * none of its numbers could be held (not free, or the user is at the draw's max_per_user; the
 * excess is recorded in skipped_numbers). The charge happens later, in job autopay.charge,
 * started from the draw.opened event by the outbox relay (jobs/outbox.ts, autopay's events.ts).
 */
export async function holdCaptiveNumbers(trx: Trx, draw: DrawRow, openedBy: 'sellout' | 'admin' | 'customer'): Promise<HoldOutcome | null> {
  // RULES A3: only a draw opened by sell-out succession or by an admin, never by a customer's ensure-open-draw.
  if (openedBy === 'customer') return null;
  if (draw.status !== 'open' || !draw.infoproduct_id) return null;
  const cfg = await readAppConfig(trx);
  if (!cfg.main_infoproduct_id || cfg.main_infoproduct_id !== draw.infoproduct_id) return null;
  const claims: ProfileClaim[] = (
    await trx.raw(
      `SELECT p.id::int AS profile_id, p.user_id::int AS user_id, array_agg(c.n ORDER BY c.n) AS numbers
         FROM autopay_profiles p
         JOIN autopay_captive_numbers c ON c.profile_id = p.id AND c.active
        WHERE p.active AND p.provider_card_id IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM autopay_runs r WHERE r.profile_id = p.id AND r.draw_id = ?)
        GROUP BY p.id
        ORDER BY p.id`,
      [draw.id],
    )
  ).rows;
  if (!claims.length) return { drawId: draw.id, held: 0, skipped: 0, numbers: 0 };

  const holdMinutes = await autopayHoldMinutes(trx);
  const holdUntil = new Date(Date.now() + holdMinutes * 60_000);
  const wanted = [...new Set(claims.flatMap((c) => c.numbers))].filter((n) => n < draw.total_numbers).sort((a, b) => a - b);
  // Cells in number order, as every path that locks cells (a reopened draw may have sales).
  const cells = wanted.length ? await lockCells(trx, draw.id, wanted) : [];
  const free = new Set(cells.filter((c) => c.status === 'available').map((c) => c.n));
  // What each user already has in the draw (0 in a new draw; a reopened one may have some).
  const have = new Map<number, number>();
  if (draw.max_per_user > 0) {
    const users = claims.map((c) => c.user_id);
    const owned: Array<{ user_id: number; c: number }> = await trx('draw_numbers')
      .where({ draw_id: draw.id })
      .whereIn('owner_user_id', users)
      .groupBy('owner_user_id')
      .select('owner_user_id as user_id', trx.raw('count(*)::int AS c'));
    const held: Array<{ user_id: number; c: number }> = await trx('draw_numbers as dn')
      .join('reservations as r', 'r.id', 'dn.reservation_id')
      .where({ 'dn.draw_id': draw.id, 'dn.status': 'reserved', 'r.status': 'active' })
      .whereIn('r.user_id', users)
      .groupBy('r.user_id')
      .select('r.user_id', trx.raw('count(*)::int AS c'));
    for (const r of [...owned, ...held]) have.set(Number(r.user_id), (have.get(Number(r.user_id)) ?? 0) + Number(r.c));
  }

  const plans = claims.map((c) => {
    let take = c.numbers.filter((n) => free.has(n));
    let overLimit: number[] = [];
    if (draw.max_per_user > 0) {
      const room = Math.max(0, draw.max_per_user - (have.get(c.user_id) ?? 0));
      overLimit = take.slice(room);
      take = take.slice(0, room);
    }
    const notFree = c.numbers.filter((n) => !free.has(n));
    const why = [
      notFree.length ? `números ${notFree.map(label).join(', ')} indisponíveis` : null,
      overLimit.length ? `números ${overLimit.map(label).join(', ')} acima do limite de ${draw.max_per_user} por pessoa` : null,
    ].filter(Boolean);
    return { ...c, take, skipped: [...notFree, ...overLimit].sort((a, b) => a - b), note: why.length ? why.join('; ') : null };
  });

  const holding = plans.filter((p) => p.take.length);
  // The draws module owns the cells and reservations: it writes the holds.
  const reservationOf = await holdCells(trx, {
    drawId: draw.id,
    holds: holding.map((p) => ({ userId: p.user_id, numbers: p.take })),
    source: 'autopay',
    expiresAt: holdUntil,
  });
  await trx('autopay_runs')
    .insert(
      plans.map((p) => ({
        profile_id: p.profile_id,
        draw_id: draw.id,
        status: p.take.length ? 'held' : 'skipped',
        numbers: p.take,
        skipped_numbers: p.skipped,
        reservation_id: reservationOf.get(p.user_id) ?? null,
        hold_until: p.take.length ? holdUntil : null,
        error: p.note,
        settled_at: p.take.length ? null : trx.fn.now(),
      })),
    )
    .onConflict(['profile_id', 'draw_id'])
    .ignore();
  return {
    drawId: draw.id,
    held: holding.length,
    skipped: plans.length - holding.length,
    numbers: holding.reduce((s, p) => s + p.take.length, 0),
  };
}

const label = (n: number) => String(n).padStart(2, '0');

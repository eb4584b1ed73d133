import type { Conn, Trx } from '../platform/db';
import { readAppConfig } from '../platform/app-config';
import type { DrawRow } from '../draws/queries';

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
 * DESIGN §7, in the transaction that opens the draw (a draw-opened hook, wired in services.ts): when the draw
 * belongs to the main series (app config main_infoproduct_id), every active profile with a saved
 * card gets its captive numbers that are free held for it (a reservation with source 'autopay'
 * until the hold's end) and one autopay run (UNIQUE profile, draw): 'held', or 'skipped' when
 * none of its numbers could be held (not free, or the user is at the draw's max_per_user; the
 * excess is recorded in skipped_numbers). The charge happens later, in job autopay.charge,
 * started from the draw.opened event by the outbox relay.
 */
export async function holdCaptiveNumbers(trx: Trx, draw: DrawRow): Promise<HoldOutcome | null> {
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
  const freeRows: Array<{ n: number }> = wanted.length
    ? await trx('draw_numbers').where({ draw_id: draw.id, status: 'available' }).whereIn('n', wanted).orderBy('n').forUpdate().select('n')
    : [];
  const free = new Set(freeRows.map((r) => r.n));
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
  const reservationOf = new Map<number, number>();
  if (holding.length) {
    const inserted: Array<{ id: number; user_id: number }> = await trx('reservations')
      .insert(holding.map((p) => ({ user_id: p.user_id, draw_id: draw.id, numbers: p.take, status: 'active', source: 'autopay', expires_at: holdUntil })))
      .returning(['id', 'user_id']);
    for (const r of inserted) reservationOf.set(Number(r.user_id), Number(r.id));
    const ns: number[] = [];
    const rids: number[] = [];
    for (const p of holding) for (const n of p.take) (ns.push(n), rids.push(reservationOf.get(p.user_id)!));
    await trx.raw(
      `UPDATE draw_numbers dn SET status = 'reserved', reservation_id = v.rid, updated_at = now()
         FROM (SELECT unnest(?::int[]) AS n, unnest(?::bigint[]) AS rid) v
        WHERE dn.draw_id = ? AND dn.n = v.n AND dn.status = 'available'`,
      [ns, rids, draw.id],
    );
  }
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
  return { drawId: draw.id, held: holding.length, skipped: plans.length - holding.length, numbers: holding.reduce((s, p) => s + p.take.length, 0) };
}

const label = (n: number) => String(n).padStart(2, '0');

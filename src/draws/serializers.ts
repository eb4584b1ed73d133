import { initialsOf } from '../shared/initials';
import { iso } from '../shared/iso';
import type { BoardNumber as BoardCell, Draw, DrawResultWord, DrawStatus, Reservation, ReservationNumber } from '../shared/api/draws';
import type { BoardNumber, Counts, DrawRow } from './queries';

/**
 * A draw's status as every answer says it (RULES D6, account spec §3/§4): open, closed,
 * `sorteado`. The database keeps 'drawn' for a decided draw; this is the one translation.
 */
export function drawStatusWord(status: DrawRow['status']): DrawStatus {
  return status === 'drawn' ? 'sorteado' : status;
}

/**
 * The result of a draw for one caller (account spec §4 badges): the status while not decided;
 * once decided `contemplado` for the winner, `nao contemplado` for the other participants (also
 * when nobody won), `sorteado` for someone who did not take part.
 */
export function drawResultFor(draw: Pick<DrawRow, 'status' | 'winner_user_id'>, userId: number, participated = true): DrawResultWord {
  if (draw.status !== 'drawn') return draw.status;
  if (draw.winner_user_id != null && draw.winner_user_id === userId) return 'contemplado';
  return participated ? 'nao contemplado' : 'sorteado';
}

/**
 * A status filter in a query (`?status=`) → the database statuses it selects. The spec's words
 * and their Portuguese forms are accepted ('drawn' too, the word answers used before). A held
 * raffles list asks for `closed` and gets the decided draws as well (account spec §7 "Held
 * raffles": GET /draws?status=closed is its first path, and a decided draw was closed first).
 */
export const DRAW_STATUS_FILTERS = {
  open: ['open'],
  aberto: ['open'],
  closed: ['closed', 'drawn'],
  fechado: ['closed', 'drawn'],
  sorteado: ['drawn'],
  drawn: ['drawn'],
} as const satisfies Record<string, ReadonlyArray<DrawRow['status']>>;
export type DrawStatusFilter = keyof typeof DRAW_STATUS_FILTERS;
export const DRAW_STATUS_FILTER_NAMES = Object.keys(DRAW_STATUS_FILTERS) as [DrawStatusFilter, ...DrawStatusFilter[]];

/** Whole days from `from` to `to` (now when null), never negative. */
export function wholeDays(from: Date | string, to: Date | string | null | undefined, now = Date.now()): number {
  const end = to == null ? now : new Date(to).getTime();
  return Math.max(0, Math.floor((end - new Date(from).getTime()) / 86_400_000));
}

export interface PriceSources {
  productPriceCents: number | null | undefined;
  configTicketPriceCents: number;
}

/**
 * Effective ticket price of a draw (RULES N7): draw override → product price
 * → config ticket_price_cents. The one function every path uses.
 */
export function effectiveTicketPrice(draw: Pick<DrawRow, 'ticket_price_cents_override'> | null, src: PriceSources): number {
  if (draw?.ticket_price_cents_override != null) return draw.ticket_price_cents_override;
  if (src.productPriceCents != null) return src.productPriceCents;
  return src.configTicketPriceCents;
}

const EMPTY_COUNTS: Counts = { reserved: 0, sold: 0, taken: 0, available: 0 };

export function serializeDraw(
  draw: DrawRow,
  o: {
    ticketPriceCents: number;
    counts?: Counts;
    product?: { title: string; cover_url: string | null; sku: string | null } | null;
    winnerName?: string | null;
  },
): Draw {
  const counts = o.counts ?? { ...EMPTY_COUNTS, available: draw.total_numbers };
  return {
    id: draw.id,
    draw_id: draw.id,
    title: draw.title,
    name: draw.title,
    status: drawStatusWord(draw.status),
    infoproduct_id: draw.infoproduct_id,
    total_numbers: draw.total_numbers,
    numbers_total: draw.total_numbers,
    prize_cents: draw.prize_cents,
    ticket_price_cents: o.ticketPriceCents,
    price_cents: o.ticketPriceCents,
    ticket_price_cents_override: draw.ticket_price_cents_override,
    max_per_user: draw.max_per_user,
    counts: { reserved: counts.reserved, sold: counts.sold, taken: counts.taken },
    reserved: counts.reserved,
    sold: counts.sold,
    taken: counts.taken,
    available: counts.available,
    opened_at: iso(draw.opened_at),
    created_at: iso(draw.created_at),
    closed_at: iso(draw.closed_at),
    realized_at: iso(draw.realized_at),
    days_open: wholeDays(draw.opened_at, draw.closed_at ?? draw.realized_at),
    winner_user_id: draw.winner_user_id,
    winner_name: o.winnerName ?? null,
    winner_number: draw.winner_number,
    cover_url: o.product?.cover_url ?? null,
    sku: o.product?.sku ?? null,
    product_title: o.product?.title ?? null,
  };
}
export type DrawView = Draw;

/** Public board cell: status and owner initials only (never names, emails or CPFs). */
export function serializeNumber(b: BoardNumber): BoardCell {
  return {
    n: b.n,
    status: b.status,
    initials: b.status === 'sold' ? initialsOf(b.owner_name) : null,
  };
}

/** A reservation as the spec's entity has it: one item per number (account spec §3 "Reservation"). */
export function reservationNumbers(r: Reservation): ReservationNumber[] {
  return r.numbers.map((n) => ({
    id: r.id,
    reservation_id: r.id,
    draw_id: r.draw_id,
    number: n,
    n,
    status: r.status,
    expires_at: r.expires_at,
    reserved_until: r.reserved_until,
    created_at: r.created_at,
  }));
}

import { initialsOf } from '../shared/initials';
import { iso } from '../shared/iso';
import type { BoardNumber as BoardCell, Draw } from '../shared/api/draws';
import type { BoardNumber, Counts, DrawRow } from './queries';

export interface PriceSources {
  productPriceCents: number | null | undefined;
  configTicketPriceCents: number;
}

/**
 * Effective ticket price of a draw (DESIGN §2): draw override → product price
 * → config ticket_price_cents. The one function every path uses.
 */
export function effectiveTicketPrice(draw: Pick<DrawRow, 'ticket_price_cents_override'> | null, src: PriceSources): number {
  if (draw?.ticket_price_cents_override != null) return draw.ticket_price_cents_override;
  if (src.productPriceCents != null) return src.productPriceCents;
  return src.configTicketPriceCents;
}

const EMPTY_COUNTS: Counts = { reserved: 0, sold: 0, taken: 0, available: 0 };

export function serializeDraw(draw: DrawRow, o: { ticketPriceCents: number; counts?: Counts; product?: { title: string; cover_url: string | null; sku: string | null } | null }): Draw {
  const counts = o.counts ?? { ...EMPTY_COUNTS, available: draw.total_numbers };
  return {
    id: draw.id,
    draw_id: draw.id,
    title: draw.title,
    name: draw.title,
    status: draw.status,
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
    winner_user_id: draw.winner_user_id,
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

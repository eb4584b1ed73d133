/**
 * Draw shapes of the public API, declared once: the server's serializers (src/draws) return
 * them and the web client (web/src/api/types.ts) re-exports them. Types only: no runtime
 * imports, so the web bundle can import this file. Money in cents; times are ISO-8601 strings.
 * Aliases are the ones the storefront spec lists (storefront.md "Draw", "Number").
 */

/** A board cell's status. This server sends available, reserved or sold; the spec also names
 *  'taken' (shown, like sold, as unavailable), which the web accepts. */
export type NumberStatus = 'available' | 'reserved' | 'sold' | 'taken';

/** A public board cell: status and owner initials only (never names, emails or CPFs). */
export interface BoardNumber {
  n: number;
  status: NumberStatus;
  /** Owner initials (≤ 3 uppercase letters) for sold numbers; null otherwise. */
  initials: string | null;
}

export interface DrawCounts {
  reserved: number;
  sold: number;
  taken: number;
}

/**
 * A draw's status in the specs' words (account spec §3 "Draw", §4; RULES D6): open, closed
 * (sold out or paused, awaiting the Lotomania contest) and `sorteado` (decided). The database
 * keeps its own word for the last one ('drawn'); src/draws/serializers.ts `drawStatusWord` is the
 * one place that translates.
 */
export type DrawStatus = 'open' | 'closed' | 'sorteado';

/**
 * A draw's result for one participant (account spec §4 badges): the draw's status while it is
 * not decided; once decided, `contemplado` for the winner and `nao contemplado` for everyone else.
 */
export type DrawResultWord = 'open' | 'closed' | 'sorteado' | 'contemplado' | 'nao contemplado';

/** GET /api/draws/{id}, the items of GET /api/draws, and every draw nested in another answer. */
export interface Draw {
  id: number;
  /** Alias of id. */
  draw_id: number;
  title: string;
  /** Alias of title. */
  name: string;
  status: DrawStatus;
  infoproduct_id: number | null;
  total_numbers: number;
  /** Alias of total_numbers. */
  numbers_total: number;
  prize_cents: number;
  /** Effective price of one number (draw override → product price → config), computed by the server. */
  ticket_price_cents: number;
  /** Alias of ticket_price_cents. */
  price_cents: number;
  ticket_price_cents_override: number | null;
  max_per_user: number;
  counts: DrawCounts;
  /** Plain copies of counts. */
  reserved: number;
  sold: number;
  taken: number;
  available: number;
  opened_at: string;
  created_at: string;
  closed_at: string | null;
  realized_at: string | null;
  /** Whole days between opening and closing (until now while open); the held raffles' 'DIAS ABERTO'. */
  days_open: number;
  winner_user_id: number | null;
  /** The winner's initials here (other people's names never leave the server); the full name in admin answers. */
  winner_name: string | null;
  winner_number: number | null;
  cover_url: string | null;
  sku: string | null;
  product_title: string | null;
}

/** What open-draw answers for a product without an open draw. */
export interface PendingDraw {
  id: null;
  status: 'pending';
  total_numbers: number;
  prize_cents: number;
  ticket_price_cents: number;
  counts: DrawCounts;
}

/**
 * POST /api/infoproducts/{idOrSku}/ensure-open-draw when the product has no open draw and none may
 * be opened by a customer (RULES D3, D4: an admin closed its last draw, a pause). 200: the storefront
 * reads `draw_id ?? id` and finds none, which it does not show as an error.
 */
export interface PausedDraw {
  id: null;
  draw_id: null;
  status: 'paused';
  open: false;
  infoproduct_id: number;
  /** The draw the admin closed. */
  last_draw_id: number | null;
  total_numbers: null;
  message: string;
}

/** GET /api/draws/{id}/numbers (and /api/numbers?draw_id=…). */
export interface DrawBoard {
  draw_id: number;
  status: DrawStatus;
  total_numbers: number;
  numbers: BoardNumber[];
}

/** active (holding its numbers), consumed (vouchers spent on it), paid (a PIX paid for it), expired, cancelled. */
export type ReservationStatus = 'active' | 'consumed' | 'paid' | 'expired' | 'cancelled';

/** POST /api/reservations (201), and the items of GET /api/me/reservations. */
export interface Reservation {
  id: number;
  /** Aliases of id. */
  reservationId: number;
  reservation_id: number;
  draw_id: number;
  /** Sorted ascending. */
  numbers: number[];
  status: ReservationStatus;
  expires_at: string;
  /** Alias of expires_at. */
  reserved_until: string;
  created_at: string;
}

/** One number of a reservation (account spec §3 "Reservation": id, draw_id, number, status, expiry). */
export interface ReservationNumber {
  /** The reservation's id (one reservation holding three numbers gives three items with its id). */
  id: number;
  reservation_id: number;
  draw_id: number;
  number: number;
  /** Alias of number. */
  n: number;
  status: ReservationStatus;
  expires_at: string;
  reserved_until: string;
  created_at: string;
}

/**
 * GET /api/me/reservations (`active=1`: only holds still running), newest first: `items` one per
 * reservation with its numbers (our web), `reservations` one per number (the spec's entity).
 */
export interface MyReservations {
  items: Reservation[];
  reservations: ReservationNumber[];
}

/** GET /api/vouchers/remaining (anonymous: remaining 0, max null). */
export interface VoucherAllowance {
  remaining: number;
  max: number | null;
}

/** POST /api/vouchers/consume (200). */
export interface ConsumeResult {
  ok: true;
  message: string;
  draw_id: number;
  numbers: number[];
  remaining: number;
  sold_out: boolean;
  next_draw_id: number | null;
}

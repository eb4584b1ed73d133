/**
 * Shapes of the admin console's held raffles, active raffle buyers and winners (account
 * spec §2, §3, §7), declared once: src/draws/admin-history.ts, open-buyers.ts and winners.ts
 * return them, the web re-exports them (web/src/api/types.ts). Types only. Money in cents; times
 * are ISO-8601 strings; numbers are plain integers (the web pads them).
 */
import type { ResultAlert } from './admin-draws';
import type { DrawStatus } from './draws';

/** A page of a paginated admin list. */
export interface Page<T> {
  items: T[];
  hasMore: boolean;
  limit: number;
  offset: number;
}

/** One row of GET /api/admin/draws/history: a closed or decided draw. */
export interface HeldDraw {
  id: number;
  draw_id: number;
  title: string;
  status: Exclude<DrawStatus, 'open'>;
  total_numbers: number;
  /** Live sales (refunded or charged-back ones excluded). */
  sold: number;
  /** Distinct buyers with a live sale. */
  participants: number;
  opened_at: string;
  closed_at: string | null;
  /** Whole days between opening and closing. */
  days_open: number;
  realized_at: string | null;
  contest_number: number | null;
  winner_user_id: number | null;
  winner_name: string | null;
  winner_number: number | null;
  /** Drawn without any qualifying number (RULES W2). */
  no_winner: boolean;
  product_name: string | null;
  product_link: string | null;
  redeemed: boolean;
  /** A closed draw whose contest the results service published unusable (RULES W9); null otherwise. */
  result_alert: ResultAlert | null;
}

/** One number of a participant in a draw. */
export interface ParticipantEntry {
  number: number;
  /** approved (a live sale), pending (held by an active reservation), refunded, charged_back, voided. */
  status: 'approved' | 'pending' | 'refunded' | 'charged_back' | 'voided';
  /** How the number was paid: pix, card (autopay), voucher (an e-book's numbers), admin; null for a hold. */
  payment_kind: 'pix' | 'autopay' | 'voucher' | 'admin' | null;
  payment_id: number | null;
}

/** A participant of a draw with all their numbers (the `items` of GET /api/admin/draws/{id}/participants). */
export interface Participant {
  user_id: number;
  name: string;
  /** Alias of name (account spec §3 "Participant"). */
  user_name: string;
  email: string;
  phone: string | null;
  /** How many numbers the user has (live sales and holds). */
  quantity: number;
  /** Sorted ascending. */
  numbers: number[];
  /** Distinct statuses of the numbers. */
  statuses: ParticipantEntry['status'][];
  /** Distinct payment kinds of the numbers. */
  payment_kinds: Array<NonNullable<ParticipantEntry['payment_kind']>>;
  entries: ParticipantEntry[];
}

/** One number with its participant (account spec §3 "Participant"): the items of `participants`. */
export interface ParticipantNumber {
  user_id: number;
  user_name: string;
  number: number;
  status: ParticipantEntry['status'];
}

/**
 * GET /api/admin/draws/{id}/participants: `participants` one item per number (the spec's shape,
 * by number), and `items` the same users grouped (our console's view, sorted by name). Both
 * cover the users of this page.
 */
export interface DrawParticipants extends Page<Participant> {
  draw_id: number;
  status: DrawStatus;
  /** Numbers with a live sale in the draw. */
  sold: number;
  participants: ParticipantNumber[];
}

/** A buyer of the active draw (account spec §3 "Open-buyers response"). */
export interface OpenBuyer {
  user_id: number;
  name: string;
  email: string;
  phone: string | null;
  count: number;
  /** Sorted ascending. */
  numbers: number[];
  /** What the buyer paid for these numbers: PIX/card payments, e-book numbers at the draw's price, admin numbers 0. */
  total_cents: number;
}

/** A number of the active draw with its buyer (null fields while unsold). */
export interface OpenBuyerNumber {
  n: number;
  status: 'available' | 'reserved' | 'sold';
  user_id: number | null;
  name: string | null;
  email: string | null;
}

/** GET /api/admin/dashboard/open-buyers. `draw_id` null when no draw is open. */
export interface OpenBuyers {
  draw_id: number | null;
  title: string | null;
  total_numbers: number;
  /** Sold (approved) numbers. */
  sold: number;
  /** Numbers not sold (free or held). */
  remaining: number;
  price_cents: number | null;
  buyers: OpenBuyer[];
  numbers: OpenBuyerNumber[];
}

/** GET /api/admin/winners: the list under the spec's key `winners` (account spec §7), paginated. */
export interface WinnerList {
  winners: Winner[];
  hasMore: boolean;
  limit: number;
  offset: number;
}

/** One row of GET /api/admin/winners, and the answer of PATCH /api/admin/winners/{drawId}. */
export interface Winner {
  draw_id: number;
  id: number;
  title: string;
  contest_number: number | null;
  winner_user_id: number;
  winner_name: string;
  winner_email: string;
  winner_phone: string | null;
  winner_number: number;
  realized_at: string;
  /** RESGATADO or NÃO RESGATADO (account spec §4). */
  status: 'RESGATADO' | 'NÃO RESGATADO';
  redeemed: boolean;
  /** Whole days since realized_at. */
  days_since: number;
  product_name: string | null;
  product_link: string | null;
}

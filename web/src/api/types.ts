/** Shapes the server answers (see src/catalogue, src/draws, src/payments). Money in cents. */

export type NumberStatus = 'available' | 'reserved' | 'sold' | 'taken';

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

export interface Draw {
  id: number;
  draw_id: number;
  title: string;
  status: 'open' | 'closed' | 'drawn';
  infoproduct_id: number | null;
  total_numbers: number;
  prize_cents: number;
  /** Effective price of one number (draw override → product price → config). */
  ticket_price_cents: number;
  ticket_price_cents_override: number | null;
  max_per_user: number;
  counts: DrawCounts;
  available: number;
  opened_at: string;
  closed_at: string | null;
  winner_user_id: number | null;
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

export interface Product {
  id: number;
  sku: string | null;
  title: string;
  subtitle: string | null;
  description: string | null;
  cover_url: string | null;
  price_cents: number | null;
  prize_cents: number;
  default_prize_cents: number;
  default_total_numbers: number;
  category_slug: string | null;
  category_name: string | null;
  draw: Draw | null;
}

export interface CatalogueSection {
  slug: string;
  name: string;
  logo_url: string | null;
  items: Array<{ product: Product; draw: Draw | null }>;
}

export interface PublicConfig {
  current_draw_id: number | null;
  draw_id: number | null;
  banner_title: string;
  max_numbers_per_selection: number;
  ticket_price_cents: number;
}

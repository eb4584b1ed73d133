/**
 * Catalogue shapes of the public API, declared once: the server's serializers (src/catalogue)
 * return them and the web client (web/src/api/types.ts) re-exports them. Types only: no
 * runtime imports, so the web bundle can import this file. Money in cents.
 */
import type { BoardNumber, Draw, PendingDraw } from './draws';

/**
 * The fields every view of an e-book shares: the storefront's Product, the console's
 * AdminInfoproduct (src/shared/api/admin-infoproducts.ts) and the server's rows (src/catalogue).
 */
export interface InfoproductFields {
  id: number;
  sku: string | null;
  title: string;
  subtitle: string | null;
  description: string | null;
  /** Public image: an uploaded cover (`/api/covers/…`), a site path or an http(s) URL. */
  cover_url: string | null;
  price_cents: number | null;
  default_prize_cents: number;
  default_total_numbers: number;
  active: boolean;
  category_id: number | null;
  category_slug: string | null;
  category_name: string | null;
}

/** A product as the storefront sees it (never file_url: the e-book file is for buyers only). */
export interface Product extends InfoproductFields {
  /** The open draw's prize, else the product's default. */
  prize_cents: number;
  /** The product's open draw, if any. */
  draw: Draw | null;
}

/** The items of GET /api/infoproducts (`{items}`); `numbers` with include=numbers. */
export type CatalogueItem = Product & { numbers?: BoardNumber[] };

/** GET /api/infoproducts/{idOrSku}: the product and its latest draws. */
export type ProductDetail = Product & { draws: Draw[] };

/** GET /api/infoproducts/sections */
export interface CatalogueSection {
  slug: string;
  name: string;
  logo_url: string | null;
  items: Array<{ product: Product; draw: Draw | null }>;
}

/** GET /api/infoproducts/{idOrSku}/open-draw (`numbers` with include=numbers). */
export interface OpenDrawAnswer {
  draw: Draw | PendingDraw;
  product: Product;
  numbers?: BoardNumber[];
}

/** GET /api/config */
export interface PublicConfig {
  current_draw_id: number | null;
  /** Alias of current_draw_id. */
  draw_id: number | null;
  banner_title: string;
  max_numbers_per_selection: number;
  /** The current draw's ticket price (what its buyers pay); the config's fallback when there is none. */
  ticket_price_cents: number;
  /** The config's own price: the fallback of draws with neither an override nor an e-book price. */
  default_ticket_price_cents: number;
}

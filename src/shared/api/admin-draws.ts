/**
 * Shapes of the admin dashboard and draws table (GET /api/admin/dashboard/summary,
 * /api/admin/draws…), declared once: src/draws/admin.ts returns them and the admin console
 * (web/src/api/types.ts) re-exports them. Types only. Money in cents.
 */
import type { Draw, DrawStatus } from './draws';

/** A row of GET /api/admin/draws (and the answer of its POST/PUT/PATCH/GET by id). */
export type AdminDraw = Draw & {
  ip_title: string | null;
  /** Alias of ip_title. */
  ipTitle: string | null;
  ip_price_cents: number | null;
  /** Alias of ip_price_cents. */
  ipPriceCents: number | null;
  /** True while the draw never took a hold, sale, payment or autopay run ('Excluir' allowed). */
  deletable: boolean;
  /** A closed draw whose contest the results service published unusable (RULES W9); null otherwise. */
  result_alert: ResultAlert | null;
};

/**
 * Why a closed draw will not be decided by the `results.fetch` job (RULES W9): the results service
 * published its contest without the draw order. `message` is the console's text (Portuguese).
 */
export interface ResultAlert {
  kind: 'draw_order_missing';
  contest_number: number;
  /** When the contest was held. */
  drawn_at: string;
  /** When the service was first seen answering so. */
  since: string;
  message: string;
}

/**
 * Answer of PATCH/PUT /api/admin/draws/{id} (and the CLI's draws close): the draw, and when the
 * change closed the main series' open draw, `notice` says that the store has no current draw of
 * the main series until one is opened (RULES D3: an admin's close is a pause).
 */
export type AdminDrawChange = AdminDraw & { notice?: string };

export interface AdminDrawList {
  items: AdminDraw[];
  hasMore: boolean;
  limit: number;
  offset: number;
}

/**
 * GET /api/admin/dashboard/summary: the current draw (the main series' open draw, else the newest
 * open draw; nulls when no draw is open) and the settings. `infoproduct_id` ≠ `main_infoproduct_id`
 * says the draw shown is not of the main series.
 */
export interface DashboardSummary {
  draw_id: number | null;
  title: string | null;
  status: DrawStatus | null;
  infoproduct_id: number | null;
  main_infoproduct_id: number | null;
  total_numbers: number;
  sold: number;
  reserved: number;
  available: number;
  /** Not sold yet: free plus held. */
  remaining: number;
  price_cents: number;
  /** Alias of price_cents. */
  ticket_price_cents: number;
  config_ticket_price_cents: number;
  max_per_user: number | null;
  max_numbers_per_selection: number;
  banner_title: string;
}

/**
 * POST /api/admin/dashboard/new (201): the main series' open draw closed and its successor
 * opened; when the main series had no open draw, one is opened and `closed_draw_id` is null.
 */
export interface NewSeriesResult {
  closed_draw_id: number | null;
  draw_id: number;
  sold: number;
}

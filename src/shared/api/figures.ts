/**
 * GET /api/admin/dashboard/figures: the business at a glance (the console dashboard's charts).
 * Types only (the web imports them). Money in cents; days are São Paulo calendar days (YYYY-MM-DD).
 */
export interface FiguresDay {
  day: string;
  /** Approved payments paid that day. */
  sales: number;
  /** Their amount. */
  revenue_cents: number;
  /** Numbers sold that day (any way: voucher, PIX, autopay, admin). */
  numbers_sold: number;
  /** PIX charges created that day, and how many of those were paid. */
  pix_created: number;
  pix_paid: number;
}

export interface FiguresDraw {
  draw_id: number;
  title: string;
  status: 'open' | 'closed' | 'sorteado';
  total_numbers: number;
  sold: number;
  opened_at: string;
  closed_at: string | null;
  /** Hours from opening to the sale of its last number; null unless every number was sold. */
  sellout_hours: number | null;
}

export interface DashboardFigures {
  days: number;
  from: string;
  to: string;
  per_day: FiguresDay[];
  draws: FiguresDraw[];
  pix: { created: number; paid: number; conversion: number | null };
  totals: { sales: number; revenue_cents: number; numbers_sold: number };
}

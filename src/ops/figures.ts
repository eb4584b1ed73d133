import { z } from 'zod';
import type { Db } from '../platform/db';
import { drawStatusWord } from '../draws/serializers';
import type { DashboardFigures, FiguresDay, FiguresDraw } from '../shared/api/figures';

/** The business's calendar: days are counted in São Paulo time. */
const TZ = 'America/Sao_Paulo';

export const FiguresQuery = z.object({
  days: z.coerce
    .number({ error: 'Informe o número de dias.' })
    .int('Use um número inteiro de dias.')
    .min(7, 'No mínimo 7 dias.')
    .max(90, 'No máximo 90 dias.')
    .default(30),
  draws: z.coerce
    .number({ error: 'Informe quantos sorteios.' })
    .int('Use um número inteiro de sorteios.')
    .min(1, 'No mínimo 1 sorteio.')
    .max(50, 'No máximo 50 sorteios.')
    .default(20),
});

/**
 * The console dashboard's figures (read-only, over payments, number_sales and draws): sales and
 * revenue per day, numbers sold per draw with the time each sold-out board took, PIX conversion
 * (charges created → paid) over the same days.
 */
export function createFiguresService(deps: { db: Db }) {
  const { db } = deps;
  return {
    async figures(query: unknown, now = new Date()): Promise<DashboardFigures> {
      const q = FiguresQuery.parse(query);
      // The window: the last `days` calendar days including today (São Paulo).
      const { rows: dayRows } = await db.raw<{ rows: Array<{ day: string }> }>(
        `SELECT to_char(d, 'YYYY-MM-DD') AS day
           FROM generate_series((timezone(?, ?::timestamptz))::date - (? - 1), (timezone(?, ?::timestamptz))::date, interval '1 day') AS d`,
        [TZ, now.toISOString(), q.days, TZ, now.toISOString()],
      );
      const from = dayRows[0].day;
      const to = dayRows[dayRows.length - 1].day;
      const since = db.raw(`(?::date)::timestamp AT TIME ZONE ?`, [from, TZ]);
      const dayOf = (col: string) => db.raw(`to_char(timezone(?, ${col}), 'YYYY-MM-DD')`, [TZ]);

      const [sales, sold, pix, drawRows] = await Promise.all([
        db('payments')
          .where({ status: 'approved' })
          .whereNotNull('paid_at')
          .where('paid_at', '>=', since)
          .groupByRaw('1')
          .select(
            { day: dayOf('paid_at') },
            db.raw('count(*)::int AS n'),
            db.raw('coalesce(sum(amount_cents), 0)::bigint AS cents'),
          ) as Promise<Array<{ day: string; n: number; cents: string }>>,
        db('number_sales')
          .where('created_at', '>=', since)
          .groupByRaw('1')
          .select({ day: dayOf('created_at') }, db.raw('count(*)::int AS n')) as Promise<Array<{ day: string; n: number }>>,
        db('payments')
          .where({ method: 'pix' })
          .where('created_at', '>=', since)
          .groupByRaw('1')
          .select(
            { day: dayOf('created_at') },
            db.raw('count(*)::int AS created'),
            db.raw(`count(*) FILTER (WHERE status = 'approved')::int AS paid`),
          ) as Promise<Array<{ day: string; created: number; paid: number }>>,
        db('draws as d')
          .orderBy('d.id', 'desc')
          .limit(q.draws)
          .select(
            'd.id',
            'd.title',
            'd.status',
            'd.total_numbers',
            'd.opened_at',
            'd.closed_at',
            db.raw(`(SELECT count(*)::int FROM number_sales s WHERE s.draw_id = d.id) AS sold`),
            db.raw(`(SELECT max(s.created_at) FROM number_sales s WHERE s.draw_id = d.id) AS last_sale_at`),
          ) as Promise<
          Array<{
            id: number;
            title: string;
            status: string;
            total_numbers: number;
            opened_at: Date;
            closed_at: Date | null;
            sold: number;
            last_sale_at: Date | null;
          }>
        >,
      ]);

      const byDay = new Map<string, FiguresDay>(
        dayRows.map(({ day }) => [day, { day, sales: 0, revenue_cents: 0, numbers_sold: 0, pix_created: 0, pix_paid: 0 }]),
      );
      for (const r of sales) {
        const d = byDay.get(r.day);
        if (d) {
          d.sales = r.n;
          d.revenue_cents = Number(r.cents);
        }
      }
      for (const r of sold) {
        const d = byDay.get(r.day);
        if (d) d.numbers_sold = r.n;
      }
      for (const r of pix) {
        const d = byDay.get(r.day);
        if (d) {
          d.pix_created = r.created;
          d.pix_paid = r.paid;
        }
      }
      const perDay = [...byDay.values()];
      const draws: FiguresDraw[] = drawRows
        .map((r) => ({
          draw_id: r.id,
          title: r.title,
          status: drawStatusWord(r.status as 'open' | 'closed' | 'drawn'),
          total_numbers: r.total_numbers,
          sold: r.sold,
          opened_at: new Date(r.opened_at).toISOString(),
          closed_at: r.closed_at ? new Date(r.closed_at).toISOString() : null,
          sellout_hours:
            r.sold >= r.total_numbers && r.last_sale_at
              ? Math.round(((new Date(r.last_sale_at).getTime() - new Date(r.opened_at).getTime()) / 3_600_000) * 10) / 10
              : null,
        }))
        .reverse(); // oldest first, as the charts read left to right
      const created = perDay.reduce((a, d) => a + d.pix_created, 0);
      const paid = perDay.reduce((a, d) => a + d.pix_paid, 0);
      return {
        days: q.days,
        from,
        to,
        per_day: perDay,
        draws,
        pix: { created, paid, conversion: created ? Math.round((paid / created) * 1000) / 1000 : null },
        totals: {
          sales: perDay.reduce((a, d) => a + d.sales, 0),
          revenue_cents: perDay.reduce((a, d) => a + d.revenue_cents, 0),
          numbers_sold: perDay.reduce((a, d) => a + d.numbers_sold, 0),
        },
      };
    },
  };
}
export type FiguresService = ReturnType<typeof createFiguresService>;

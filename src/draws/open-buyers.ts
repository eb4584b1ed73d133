import { z } from 'zod';
import type { Db } from '../platform/db';
import { errors } from '../platform/errors';
import { Id } from '../platform/validation';
import type { OpenBuyer, OpenBuyerNumber, OpenBuyers } from '../shared/api/admin-history';
import * as q from './queries';
import type { DrawsService } from './service';

/**
 * The admin console's 'Sorteio Ativo — Compradores' (account spec §2 and §3
 * 'Open-buyers response'): the buyers of the main series' open draw (or of `draw_id`) and every
 * number with its buyer. Only sold numbers count as bought (spec §4: only approved payments
 * count in buyer views); holds show as reserved numbers without a buyer.
 */

export const OpenBuyersQuery = z.object({ draw_id: Id('Sorteio inválido.').optional() });

export interface OpenBuyersService {
  openBuyers(query: unknown): Promise<OpenBuyers>;
}

export function createOpenBuyersService(deps: { db: Db; draws: DrawsService }): OpenBuyersService {
  const { db, draws } = deps;

  return {
    async openBuyers(query) {
      const f = OpenBuyersQuery.parse(query ?? {});
      const drawId = f.draw_id ?? (await draws.currentDrawId());
      if (drawId == null)
        return { draw_id: null, title: null, total_numbers: 0, sold: 0, remaining: 0, price_cents: null, buyers: [], numbers: [] };
      const row = await q.findDraw(db, drawId);
      if (!row) throw errors.notFound('draw_not_found', 'Sorteio não encontrado.');

      const [[view], cells, sales] = await Promise.all([
        draws.views([row]),
        db('draw_numbers as dn')
          .leftJoin('users as u', 'u.id', 'dn.owner_user_id')
          .where('dn.draw_id', drawId)
          .orderBy('dn.n')
          .select('dn.n', 'dn.status', 'dn.owner_user_id', 'u.name', 'u.email', 'u.phone') as Promise<
          Array<{
            n: number;
            status: OpenBuyerNumber['status'];
            owner_user_id: number | null;
            name: string | null;
            email: string | null;
            phone: string | null;
          }>
        >,
        // The live sale of each sold number: how it was paid.
        db('number_sales as s')
          .leftJoin('payments as p', 'p.id', 's.payment_id')
          .where('s.draw_id', drawId)
          .whereNull('s.voided_at')
          .select('s.n', 's.user_id', 's.source', 's.payment_id', 'p.amount_cents') as Promise<
          Array<{ n: number; user_id: number; source: string; payment_id: number | null; amount_cents: number | null }>
        >,
      ]);

      const saleOf = new Map(sales.map((s) => [s.n, s]));
      const buyers = new Map<number, OpenBuyer & { payments: Map<number, number> }>();
      for (const c of cells) {
        if (c.status !== 'sold' || c.owner_user_id == null) continue;
        const b =
          buyers.get(c.owner_user_id) ??
          ({
            user_id: c.owner_user_id,
            name: c.name ?? '',
            email: c.email ?? '',
            phone: c.phone,
            count: 0,
            numbers: [],
            total_cents: 0,
            payments: new Map(),
          } as OpenBuyer & {
            payments: Map<number, number>;
          });
        b.count++;
        b.numbers.push(c.n);
        const sale = saleOf.get(c.n);
        // A payment (PIX, card, admin) is counted once for all the numbers it bought; a number
        // bought with an e-book's voucher is worth the draw's ticket price.
        if (sale?.payment_id != null) b.payments.set(sale.payment_id, sale.amount_cents ?? 0);
        else if (sale?.source === 'voucher') b.total_cents += view.price_cents;
        buyers.set(c.owner_user_id, b);
      }
      const collator = new Intl.Collator('pt-BR', { sensitivity: 'base' });
      const list: OpenBuyer[] = [...buyers.values()]
        .map(({ payments, ...b }) => ({ ...b, total_cents: b.total_cents + [...payments.values()].reduce((a, x) => a + x, 0) }))
        .sort((a, b) => collator.compare(a.name, b.name) || a.user_id - b.user_id);
      const sold = cells.filter((c) => c.status === 'sold').length;
      return {
        draw_id: row.id,
        title: row.title,
        total_numbers: row.total_numbers,
        sold,
        remaining: row.total_numbers - sold,
        price_cents: view.price_cents,
        buyers: list,
        numbers: cells.map((c) => ({
          n: c.n,
          status: c.status,
          user_id: c.status === 'sold' ? c.owner_user_id : null,
          name: c.status === 'sold' ? c.name : null,
          email: c.status === 'sold' ? c.email : null,
        })),
      };
    },
  };
}

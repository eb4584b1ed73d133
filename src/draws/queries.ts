import type { Conn } from '../platform/db';

export interface NewDraw {
  infoproduct_id: number | null;
  title: string;
  total_numbers: number;
  prize_cents: number;
  ticket_price_cents_override: number | null;
  max_per_user: number;
  predecessor_id?: number | null;
  status?: 'open' | 'closed';
}

/** Inserts a draw and its number rows (one per number, DESIGN §2) in the caller's transaction. */
export async function insertDrawWithNumbers(trx: Conn, d: NewDraw) {
  const [draw] = await trx('draws')
    .insert({ ...d, status: d.status ?? 'open', predecessor_id: d.predecessor_id ?? null })
    .returning('*');
  await trx.raw(`INSERT INTO draw_numbers (draw_id, n) SELECT ?, g FROM generate_series(0, ? - 1) g`, [draw.id, d.total_numbers]);
  return draw;
}

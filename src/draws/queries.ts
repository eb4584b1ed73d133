import type { Conn } from '../platform/db';

export interface DrawRow {
  id: number;
  infoproduct_id: number | null;
  predecessor_id: number | null;
  title: string;
  status: 'open' | 'closed' | 'drawn';
  total_numbers: number;
  prize_cents: number;
  ticket_price_cents_override: number | null;
  max_per_user: number;
  opened_at: Date;
  closed_at: Date | null;
  realized_at: Date | null;
  contest_number: number | null;
  winner_user_id: number | null;
  winner_number: number | null;
  no_winner: boolean;
  product_name: string | null;
  product_link: string | null;
  redeemed: boolean;
  /** Why the draw was (last) opened / closed: see the draw-open-close-reasons migration. */
  opened_by: 'sellout' | 'admin' | 'customer';
  closed_by: 'sellout' | 'admin' | null;
  created_at: Date;
}

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

/** Inserts a draw and its number rows (one per number, RULES N3) in the caller's transaction. */
export async function insertDrawWithNumbers(trx: Conn, d: NewDraw): Promise<DrawRow> {
  const [draw] = await trx('draws')
    .insert({ ...d, status: d.status ?? 'open', predecessor_id: d.predecessor_id ?? null })
    .returning('*');
  await trx.raw(`INSERT INTO draw_numbers (draw_id, n) SELECT ?, g FROM generate_series(0, ? - 1) g`, [draw.id, d.total_numbers]);
  return draw;
}

/**
 * The settings of a product's next draw when no predecessor hands them over: those of its latest
 * draw, else the product's defaults with max_per_user 1 (the admin dialog's default).
 */
export async function nextDrawSettings(
  conn: Conn,
  product: { id: number; title: string; default_total_numbers: number; default_prize_cents: number },
): Promise<NewDraw> {
  const last: DrawRow | undefined = await conn('draws').where({ infoproduct_id: product.id }).orderBy('id', 'desc').first();
  return {
    infoproduct_id: product.id,
    title: last?.title ?? product.title,
    total_numbers: last?.total_numbers ?? product.default_total_numbers,
    prize_cents: last?.prize_cents ?? product.default_prize_cents,
    ticket_price_cents_override: last?.ticket_price_cents_override ?? null,
    max_per_user: last?.max_per_user ?? 1,
  };
}

export function findDraw(conn: Conn, id: number): Promise<DrawRow | undefined> {
  return conn('draws').where({ id }).first();
}

export function lockDraw(conn: Conn, id: number, mode: 'update' | 'share'): Promise<DrawRow | undefined> {
  const q = conn('draws').where({ id }).first();
  return (mode === 'update' ? q.forUpdate() : q.forShare()) as Promise<DrawRow | undefined>;
}

/**
 * Serializes the admin's writes that open a draw of a product (toggle, creation, change of
 * e-book) with each other and with ensureOpenDraw (which takes the row FOR SHARE): the second
 * one sees the first's open draw and answers 409 instead of meeting the unique index. Taken
 * after any draw row lock, never before (lock order draw → product, as the sale paths).
 */
export async function lockProduct(conn: Conn, infoproductId: number): Promise<{ id: number; active: boolean } | undefined> {
  return conn('infoproducts').where({ id: infoproductId }).forNoKeyUpdate().first('id', 'active');
}

/**
 * The draws among `ids` that ever took a hold, a sale (even voided), a payment or an autopay
 * run: such a draw is closed, never erased, and its total and e-book stay.
 */
export async function usedDraws(conn: Conn, ids: number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const r = await conn.raw(
    `SELECT d.id FROM unnest(?::bigint[]) AS d(id)
      WHERE EXISTS (SELECT 1 FROM draw_numbers WHERE draw_id = d.id AND status <> 'available')
         OR EXISTS (SELECT 1 FROM number_sales WHERE draw_id = d.id)
         OR EXISTS (SELECT 1 FROM reservations WHERE draw_id = d.id)
         OR EXISTS (SELECT 1 FROM payments WHERE draw_id = d.id)
         OR EXISTS (SELECT 1 FROM autopay_runs WHERE draw_id = d.id)`,
    [ids],
  );
  return new Set(r.rows.map((x: { id: string | number }) => Number(x.id)));
}

export function findOpenDrawOfProduct(conn: Conn, infoproductId: number): Promise<DrawRow | undefined> {
  return conn('draws').where({ infoproduct_id: infoproductId, status: 'open' }).first();
}

export interface Counts {
  reserved: number;
  sold: number;
  taken: number;
  available: number;
}

/**
 * Number counts per draw, for many draws in one query. The three unavailable
 * kinds are disjoint, so a client showing `total − sold − reserved − taken` as
 * free shows the truth: `taken` counts only numbers unavailable for another
 * reason than a sale or a hold (no such status exists today: 0).
 */
export async function countsByDraw(conn: Conn, drawIds: number[]): Promise<Map<number, Counts>> {
  const out = new Map<number, Counts>();
  if (!drawIds.length) return out;
  const rows: Array<{ draw_id: number; reserved: number; sold: number; taken: number; available: number }> = await conn('draw_numbers')
    .whereIn('draw_id', drawIds)
    .groupBy('draw_id')
    .select(
      'draw_id',
      conn.raw(`count(*) FILTER (WHERE status = 'reserved')::int AS reserved`),
      conn.raw(`count(*) FILTER (WHERE status = 'sold')::int AS sold`),
      conn.raw(`count(*) FILTER (WHERE status NOT IN ('available', 'reserved', 'sold'))::int AS taken`),
      conn.raw(`count(*) FILTER (WHERE status = 'available')::int AS available`),
    );
  for (const r of rows) out.set(r.draw_id, { reserved: r.reserved, sold: r.sold, taken: r.taken, available: r.available });
  return out;
}

export interface BoardNumber {
  n: number;
  status: 'available' | 'reserved' | 'sold';
  owner_name: string | null;
  owner_user_id: number | null;
}

/** Every number of a draw with its status and owner name (for initials only). */
export function boardNumbers(conn: Conn, drawId: number): Promise<BoardNumber[]> {
  return conn('draw_numbers as dn')
    .leftJoin('users as u', 'u.id', 'dn.owner_user_id')
    .where('dn.draw_id', drawId)
    .orderBy('dn.n')
    .select('dn.n', 'dn.status', 'dn.owner_user_id', 'u.name as owner_name');
}

/** The boards of many draws in one query: draw id → its numbers (as `boardNumbers`). */
export async function boardNumbersOfDraws(conn: Conn, drawIds: number[]): Promise<Map<number, BoardNumber[]>> {
  const out = new Map<number, BoardNumber[]>(drawIds.map((id) => [id, []]));
  if (!drawIds.length) return out;
  const rows: Array<BoardNumber & { draw_id: number }> = await conn('draw_numbers as dn')
    .leftJoin('users as u', 'u.id', 'dn.owner_user_id')
    .whereIn('dn.draw_id', drawIds)
    .orderBy(['dn.draw_id', 'dn.n'])
    .select('dn.draw_id', 'dn.n', 'dn.status', 'dn.owner_user_id', 'u.name as owner_name');
  for (const { draw_id, ...b } of rows) out.get(draw_id)!.push(b);
  return out;
}

/**
 * Without any lock: the draw's state and which of `numbers` are already reserved
 * or sold (committed). Used to refuse a lost race before queueing for row locks.
 */
export async function takenNumbers(
  conn: Conn,
  drawId: number,
  numbers: number[],
): Promise<{ status: string; total_numbers: number; taken: number[] } | undefined> {
  const r = await conn.raw(
    `SELECT d.status, d.total_numbers,
            coalesce(array_agg(dn.n ORDER BY dn.n) FILTER (WHERE dn.n IS NOT NULL), '{}') AS taken
       FROM draws d
       LEFT JOIN draw_numbers dn ON dn.draw_id = d.id AND dn.n = ANY(?::bigint[]) AND dn.status <> 'available'
      WHERE d.id = ?
      GROUP BY d.id`,
    [numbers, drawId],
  );
  return r.rows[0];
}

/**
 * Active reservations whose hold is past its time and that still hold some of `numbers` in the
 * draw (without a lock: each is then released under its own lock, idempotently).
 */
export async function staleHoldsAmong(conn: Conn, drawId: number, numbers: number[]): Promise<number[]> {
  const rows: Array<{ id: number }> = await conn('draw_numbers as dn')
    .join('reservations as r', 'r.id', 'dn.reservation_id')
    .where({ 'dn.draw_id': drawId, 'dn.status': 'reserved', 'r.status': 'active' })
    .whereRaw('dn.n = ANY(?::bigint[])', [numbers])
    .where('r.expires_at', '<=', conn.fn.now())
    .distinct('r.id')
    .orderBy('r.id');
  return rows.map((r) => r.id);
}

/**
 * The sold numbers of a draw that can win (RULES W3, P10): every live sale, except those of payments
 * refunded or charged back (a sale voided by a refund in an open draw is not sold any more).
 * A sale without payment (vouchers, admin) counts.
 */
export async function soldNumbersThatCount(
  conn: Conn,
  drawId: number,
): Promise<Array<{ n: number; user_id: number; payment_id: number | null }>> {
  return (
    conn('number_sales as s')
      .join('draw_numbers as dn', (j) => j.on('dn.draw_id', 's.draw_id').andOn('dn.n', 's.n'))
      .leftJoin('payments as p', 'p.id', 's.payment_id')
      .where('s.draw_id', drawId)
      .whereNull('s.voided_at')
      .where('dn.status', 'sold')
      // RULES W3: a refunded or charged-back payment's numbers never win; RULES P10: nor do a
      // disputed one's (in_mediation) while the dispute lasts.
      .where((w) => w.whereNull('s.payment_id').orWhereNotIn('p.status', ['refunded', 'charged_back', 'in_mediation']))
      .orderBy('s.n')
      .select('s.n', 's.user_id', 's.payment_id')
  );
}

/** Numbers of a draw whose sale was voided and kept (a refund after the draw closed): they never win. */
export async function voidedNumbers(conn: Conn, drawId: number): Promise<number[]> {
  const rows: Array<{ n: number }> = await conn('number_sales')
    .where({ draw_id: drawId, void_kind: 'kept' })
    .whereNotExists((w) =>
      w
        .select(1)
        .from('number_sales as live')
        .whereRaw('live.draw_id = number_sales.draw_id AND live.n = number_sales.n AND live.voided_at IS NULL'),
    )
    .distinct('n')
    .orderBy('n');
  return rows.map((r) => r.n);
}

/** Numbers a user owns in a draw. */
export async function ownedCount(conn: Conn, drawId: number, userId: number): Promise<number> {
  const r = await conn('draw_numbers').where({ draw_id: drawId, owner_user_id: userId }).count<{ c: number }[]>({ c: '*' });
  return Number(r[0].c);
}

/** Numbers a user holds in active reservations of a draw. */
export async function heldCount(conn: Conn, drawId: number, userId: number): Promise<number> {
  const r = await conn('draw_numbers as dn')
    .join('reservations as r', 'r.id', 'dn.reservation_id')
    .where({ 'dn.draw_id': drawId, 'dn.status': 'reserved', 'r.user_id': userId, 'r.status': 'active' })
    // A hold past its time no longer counts, even before the sweep releases it.
    .where('r.expires_at', '>', conn.fn.now())
    .count<{ c: number }[]>({ c: '*' });
  return Number(r[0].c);
}

/** A user's voucher balance of a product, without a lock (under its lock: lockForSale's `voucherBalance`). */
export async function voucherBalance(conn: Conn, userId: number, infoproductId: number): Promise<number> {
  const row = await conn('voucher_balances').where({ user_id: userId, infoproduct_id: infoproductId }).first('balance');
  return row?.balance ?? 0;
}

import { randomBytes } from 'node:crypto';
import type { TestContext } from '../helpers/context';
import { insertDrawWithNumbers, type DrawRow } from '../../src/draws/queries';

/**
 * Small builders for raffle-engine tests: categories, products and draws are
 * inserted directly (the admin API is not part of this module), vouchers are
 * granted through the real payments service. A direct write bypasses the app's
 * write paths, so each builder drops the app's cached public reads itself
 * (`readCache.invalidateAll()`), as the app does after its own writes.
 */
let seq = 0;
const tag = () => `${Date.now().toString(36)}${(++seq).toString(36)}${randomBytes(2).toString('hex')}`.toUpperCase();

export async function makeCategory(t: TestContext, o: { slug?: string; name?: string; logo_url?: string | null; position?: number } = {}) {
  const slug = o.slug ?? `cat-${tag().toLowerCase()}`;
  const [c] = await t.services
    .db('categories')
    .insert({ slug, name: o.name ?? `Categoria ${slug}`, logo_url: o.logo_url ?? null, position: o.position ?? 0 })
    .returning('*');
  t.services.readCache.invalidateAll();
  return c as { id: number; slug: string; name: string; logo_url: string | null };
}

export interface ProductOpts {
  sku?: string | null;
  title?: string;
  price_cents?: number | null;
  default_prize_cents?: number;
  default_total_numbers?: number;
  category_id?: number | null;
  active?: boolean;
  file_url?: string | null;
}

export async function makeProduct(t: TestContext, o: ProductOpts = {}) {
  const sku = o.sku === undefined ? `SKU-${tag()}` : o.sku;
  const [p] = await t.services
    .db('infoproducts')
    .insert({
      sku,
      title: o.title ?? `E-book ${sku ?? tag()}`,
      subtitle: 'Subtítulo',
      description: 'Descrição',
      cover_url: 'capa.svg',
      file_url: o.file_url === undefined ? `ebooks/segredo-${tag()}.pdf` : o.file_url,
      price_cents: o.price_cents === undefined ? 700 : o.price_cents,
      default_prize_cents: o.default_prize_cents ?? 12_345,
      default_total_numbers: o.default_total_numbers ?? 100,
      category_id: o.category_id ?? null,
      active: o.active ?? true,
    })
    .returning('*');
  t.services.readCache.invalidateAll();
  return p as {
    id: number;
    sku: string | null;
    title: string;
    price_cents: number | null;
    file_url: string | null;
    default_total_numbers: number;
    default_prize_cents: number;
  };
}

export interface DrawOpts {
  infoproduct_id?: number | null;
  title?: string;
  total_numbers?: number;
  prize_cents?: number;
  ticket_price_cents_override?: number | null;
  max_per_user?: number;
  status?: 'open' | 'closed';
}

export async function makeDraw(t: TestContext, o: DrawOpts = {}): Promise<DrawRow> {
  const draw = await t.services.db.transaction((trx) =>
    insertDrawWithNumbers(trx, {
      infoproduct_id: o.infoproduct_id ?? null,
      title: o.title ?? `Sorteio ${tag()}`,
      total_numbers: o.total_numbers ?? 100,
      prize_cents: o.prize_cents ?? 50_000,
      ticket_price_cents_override: o.ticket_price_cents_override ?? null,
      max_per_user: o.max_per_user ?? 0,
      status: o.status,
    }),
  );
  t.services.readCache.invalidateAll();
  return draw;
}

/** A product with an open draw of its own. */
export async function makeProductWithDraw(t: TestContext, p: ProductOpts = {}, d: DrawOpts = {}) {
  const product = await makeProduct(t, p);
  const draw = await makeDraw(t, { title: product.title, ...d, infoproduct_id: product.id });
  return { product, draw };
}

export async function grant(t: TestContext, userId: number, productId: number, quantity: number) {
  return t.services.payments.grantVouchers(
    { user: String(userId), product: String(productId), quantity: String(quantity) },
    { via: 'cli' },
  );
}

/** Marks numbers sold directly in the database (with their sale rows), for set-up only. */
export async function sellDirectly(t: TestContext, drawId: number, userId: number, numbers: number[]) {
  await t.services.db.transaction(async (trx) => {
    await trx('draw_numbers')
      .where({ draw_id: drawId })
      .whereIn('n', numbers)
      .update({ status: 'sold', owner_user_id: userId, sold_at: trx.fn.now() });
    await trx('number_sales').insert(numbers.map((n) => ({ draw_id: drawId, n, user_id: userId, source: 'admin' })));
  });
  t.services.draws.invalidateBoard(drawId);
  // The buyer's cached reads (numbers owned, vouchers left) drop like after a sale through the API.
  await t.services.sessions.userDataChanged(userId);
}

export const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

/**
 * The raffle invariants, read from the database for the given draws:
 * returns a list of human-readable violations (empty when all hold).
 */
export async function invariantViolations(t: TestContext, drawIds: number[]): Promise<string[]> {
  const db = t.services.db;
  const out: string[] = [];
  const cells: Array<{ draw_id: number; n: number; status: string; reservation_id: number | null; owner_user_id: number | null }> =
    await db('draw_numbers').whereIn('draw_id', drawIds).select('draw_id', 'n', 'status', 'reservation_id', 'owner_user_id');
  const reservations: Array<{ id: number; draw_id: number; user_id: number; numbers: number[]; status: string }> = await db('reservations')
    .whereIn('draw_id', drawIds)
    .select('id', 'draw_id', 'user_id', 'numbers', 'status');
  const sales: Array<{ draw_id: number; n: number; user_id: number }> = await db('number_sales')
    .whereIn('draw_id', drawIds)
    .select('draw_id', 'n', 'user_id');

  const key = (d: number, n: number) => `${d}/${n}`;
  // No number sold twice.
  const saleByKey = new Map<string, number>();
  for (const s of sales) {
    if (saleByKey.has(key(s.draw_id, s.n))) out.push(`number ${key(s.draw_id, s.n)} sold twice`);
    saleByKey.set(key(s.draw_id, s.n), s.user_id);
  }
  // No number held by two active reservations.
  const heldBy = new Map<string, number>();
  for (const r of reservations.filter((x) => x.status === 'active')) {
    for (const n of r.numbers) {
      if (heldBy.has(key(r.draw_id, n)))
        out.push(`number ${key(r.draw_id, n)} held by reservations ${heldBy.get(key(r.draw_id, n))} and ${r.id}`);
      heldBy.set(key(r.draw_id, n), r.id);
    }
  }
  const resById = new Map(reservations.map((r) => [r.id, r]));
  for (const c of cells) {
    const k = key(c.draw_id, c.n);
    const sale = saleByKey.get(k);
    if (c.status === 'sold') {
      if (sale === undefined) out.push(`cell ${k} sold without a sale row`);
      else if (sale !== c.owner_user_id) out.push(`cell ${k} owned by ${c.owner_user_id} but sold to ${sale}`);
    } else if (sale !== undefined) out.push(`cell ${k} is ${c.status} but has a sale row`);
    if (c.status === 'reserved') {
      const r = c.reservation_id ? resById.get(c.reservation_id) : undefined;
      if (!r || r.status !== 'active' || !r.numbers.includes(c.n))
        out.push(`cell ${k} reserved by ${c.reservation_id}, which is not an active reservation of it`);
    }
    if (c.status !== 'reserved' && heldBy.has(k)) out.push(`cell ${k} is ${c.status} but active reservation ${heldBy.get(k)} holds it`);
  }
  // A consumed reservation's numbers are sold to its user.
  for (const r of reservations.filter((x) => x.status === 'consumed')) {
    for (const n of r.numbers)
      if (saleByKey.get(key(r.draw_id, n)) !== r.user_id)
        out.push(`consumed reservation ${r.id}: ${key(r.draw_id, n)} not sold to ${r.user_id}`);
  }
  return out;
}

/** Voucher accounting per user: ledger sums equal balances, none negative. */
export async function voucherViolations(t: TestContext, userIds: number[]): Promise<string[]> {
  const db = t.services.db;
  const out: string[] = [];
  const balances: Array<{ user_id: number; infoproduct_id: number; balance: number }> = await db('voucher_balances').whereIn(
    'user_id',
    userIds,
  );
  const ledger: Array<{ user_id: number; infoproduct_id: number; total: number }> = await db('voucher_ledger')
    .whereIn('user_id', userIds)
    .groupBy('user_id', 'infoproduct_id')
    .select('user_id', 'infoproduct_id', db.raw('sum(delta)::int as total'));
  for (const b of balances) {
    if (b.balance < 0) out.push(`user ${b.user_id} product ${b.infoproduct_id}: negative balance ${b.balance}`);
    const l = ledger.find((x) => x.user_id === b.user_id && x.infoproduct_id === b.infoproduct_id);
    if ((l?.total ?? 0) !== b.balance) out.push(`user ${b.user_id} product ${b.infoproduct_id}: ledger ${l?.total} ≠ balance ${b.balance}`);
  }
  for (const l of ledger) {
    if (!balances.some((b) => b.user_id === l.user_id && b.infoproduct_id === l.infoproduct_id))
      out.push(`user ${l.user_id}: ledger without balance row`);
  }
  return out;
}

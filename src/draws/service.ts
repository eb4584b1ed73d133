import { z } from 'zod';
import type { Db, Conn, Trx } from '../platform/db';
import { isUniqueViolation } from '../platform/db';
import { errors } from '../platform/errors';
import { emitEvent } from '../platform/events';
import { Id } from '../platform/validation';
import type { Logger } from '../platform/logger';
import { readAppConfig, type AppConfig } from '../platform/app-config';
import * as q from './queries';
import {
  DRAW_STATUS_FILTER_NAMES,
  DRAW_STATUS_FILTERS,
  effectiveTicketPrice,
  serializeDraw,
  serializeNumber,
  drawStatusWord,
  type DrawView,
} from './serializers';
import { initialsOf } from '../shared/initials';
import { ReadCache, type CachedJson } from '../platform/read-cache';
import type { DrawBoard } from '../shared/api/draws';
import { closeOpenDrawOfArchived, currentDraw } from './current';

export const DrawListQuery = z.object({
  infoproduct_id: Id('E-book inválido.').optional(),
  status: z.enum(DRAW_STATUS_FILTER_NAMES, { error: 'Status inválido. Use open, closed ou sorteado.' }).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export interface ProductBrief {
  id: number;
  title: string;
  sku: string | null;
  cover_url: string | null;
  price_cents: number | null;
}

async function productsById(conn: Conn, ids: number[]): Promise<Map<number, ProductBrief>> {
  const uniq = [...new Set(ids.filter((x): x is number => x != null))];
  if (!uniq.length) return new Map();
  const rows: ProductBrief[] = await conn('infoproducts').whereIn('id', uniq).select('id', 'title', 'sku', 'cover_url', 'price_cents');
  return new Map(rows.map((r) => [r.id, r]));
}

/** What a caller already read, so that `views` does not read it again. */
export interface ViewsKnown {
  cfg?: AppConfig;
  products?: Map<number, ProductBrief>;
  counts?: Map<number, q.Counts>;
  /** Winners' full names (admin answers); initials otherwise (other people's names never leave the server). */
  fullWinnerNames?: boolean;
}

async function namesById(conn: Conn, ids: Array<number | null>): Promise<Map<number, string>> {
  const uniq = [...new Set(ids.filter((x): x is number => x != null))];
  if (!uniq.length) return new Map();
  const rows: Array<{ id: number; name: string }> = await conn('users').whereIn('id', uniq).select('id', 'name');
  return new Map(rows.map((r) => [r.id, r.name]));
}

export interface DrawsService {
  get(id: number): Promise<DrawView>;
  list(query: unknown): Promise<DrawView[]>;
  views(draws: q.DrawRow[], conn?: Conn, known?: ViewsKnown): Promise<DrawView[]>;
  /** The board `{draw_id, status, total_numbers, numbers}`, uncached. */
  board(drawId: number): Promise<DrawBoard>;
  /** Public reads served from the read cache (serialized answers, ≤ 1 s, single-flight). */
  boardJson(drawId: number): Promise<CachedJson>;
  getJson(id: number): Promise<CachedJson>;
  listJson(query: unknown): Promise<CachedJson>;
  numbers(drawId: number): Promise<ReturnType<typeof serializeNumber>[]>;
  /**
   * The product's open draw; opens one only for an active product with no draw yet or whose last
   * draw closed by selling out (RULES D2, D4). After an admin's close (a pause) it opens nothing: null.
   */
  ensureOpenDraw(infoproductId: number): Promise<q.DrawRow | null>;
  /** The product's open draw, else its latest draw (whose settings the next one inherits), else null. */
  latestDrawOf(infoproductId: number): Promise<q.DrawRow | null>;
  /** In the caller's transaction: if no number is left unsold, close the draw and open its successor. */
  closeIfSoldOut(trx: Trx, drawId: number): Promise<{ closed: boolean; successorId: number | null }>;
  /**
   * In the caller's transaction (which holds the draw row's lock): closes the open draw whatever is
   * left and opens its product's successor (sell-out, and the admin's 'NOVO SORTEIO'); `by` is
   * recorded as the draw's closed_by and the successor's opened_by.
   */
  closeAndOpenSuccessor(trx: Trx, drawId: number, by: DrawChangeReason): Promise<{ closed: boolean; successorId: number | null }>;
  /**
   * The "current draw" (RULES D7): the main series' open draw, else the newest open draw, else null;
   * never a draw of an archived e-book (D8).
   */
  currentDrawId(cfg?: AppConfig): Promise<number | null>;
  /** The current draw and its effective price (RULES N9: what GET /api/config answers), in one query. */
  currentDraw(cfg: AppConfig): Promise<{ id: number; price_cents: number } | null>;
  /**
   * In the caller's transaction, before it locks the product row (RULES D8): closes the archived
   * e-book's open draw, audited; its id, or null when none was open.
   */
  closeOpenDrawOfArchived(trx: Trx, productId: number, adminId: number | null): Promise<number | null>;
  /**
   * After a committed write that changed draw `drawId` (a sale, a hold, a release):
   * drops every cached public read showing it (board, draw, lists, open-draw, config).
   */
  invalidateBoard(drawId: number): void;
  /**
   * In the transaction that opened `draw`: records the "draw opened" event and runs the
   * draw-opened hooks wired in services.ts (autopay holds the captive numbers, RULES A2).
   */
  opened(trx: Trx, draw: q.DrawRow, by: DrawOpenReason): Promise<void>;
  /**
   * In the caller's transaction (the product row locked by the caller): the product's open draw,
   * opening one with the inherited settings (nextDrawSettings) when none is open. The one
   * "open a product's draw" other modules call (the e-book admin).
   */
  openDrawOfProduct(
    trx: Trx,
    product: { id: number; title: string; default_total_numbers: number; default_prize_cents: number },
  ): Promise<number>;
}

export type DrawOpenedHook = (trx: Trx, draw: q.DrawRow, by: DrawOpenReason) => Promise<unknown>;

export function createDrawsService(deps: { db: Db; logger: Logger; readCache?: ReadCache; onDrawOpened?: DrawOpenedHook[] }): DrawsService {
  const emitDrawOpened = (trx: Trx, draw: q.DrawRow, by: DrawOpenReason) => recordDrawOpened(trx, draw, by, deps.onDrawOpened ?? []);
  const { db } = deps;
  const cache = deps.readCache ?? new ReadCache();

  async function views(draws: q.DrawRow[], conn: Conn = db, known: ViewsKnown = {}): Promise<DrawView[]> {
    if (!draws.length) return [];
    const [cfg, products, counts, winners] = await Promise.all([
      known.cfg ?? readAppConfig(conn),
      known.products ??
        productsById(
          conn,
          draws.map((d) => d.infoproduct_id as number),
        ),
      known.counts ??
        q.countsByDraw(
          conn,
          draws.map((d) => d.id),
        ),
      namesById(
        conn,
        draws.map((d) => (d.status === 'drawn' ? d.winner_user_id : null)),
      ),
    ]);
    return draws.map((d) => {
      const product = d.infoproduct_id ? (products.get(d.infoproduct_id) ?? null) : null;
      const winner = d.winner_user_id != null ? winners.get(d.winner_user_id) : undefined;
      return serializeDraw(d, {
        ticketPriceCents: effectiveTicketPrice(d, {
          productPriceCents: product?.price_cents,
          configTicketPriceCents: cfg.ticket_price_cents,
        }),
        counts: counts.get(d.id),
        product,
        winnerName: winner === undefined ? null : known.fullWinnerNames ? winner : initialsOf(winner),
      });
    });
  }

  /** Opens a successor with the predecessor's settings (RULES D2) and records a draw.opened event. */
  async function openSuccessor(trx: Trx, prev: q.DrawRow, by: DrawChangeReason): Promise<number | null> {
    if (!prev.infoproduct_id) return null;
    const other = await q.findOpenDrawOfProduct(trx, prev.infoproduct_id);
    if (other) return other.id;
    const next = await q.insertDrawWithNumbers(trx, {
      infoproduct_id: prev.infoproduct_id,
      title: prev.title,
      total_numbers: prev.total_numbers,
      prize_cents: prev.prize_cents,
      ticket_price_cents_override: prev.ticket_price_cents_override,
      max_per_user: prev.max_per_user,
      predecessor_id: prev.id,
    });
    await emitDrawOpened(trx, next, by);
    return next.id;
  }

  /** Closes an open draw (draw.closed event) and opens its product's successor, in the caller's transaction. */
  async function closeAndOpenSuccessor(
    trx: Trx,
    drawId: number,
    by: DrawChangeReason,
  ): Promise<{ closed: boolean; successorId: number | null }> {
    const [draw] = await trx('draws')
      .where({ id: drawId, status: 'open' })
      .update({ status: 'closed', closed_by: by, closed_at: trx.fn.now(), updated_at: trx.fn.now() })
      .returning('*');
    if (!draw) return { closed: false, successorId: null };
    await emitEvent(trx, 'draw.closed', { drawId, by });
    // Lists, sections, detail and config all change (a draw closed, its successor opens).
    cache.invalidateAllAfterCommit(trx);
    const successorId = await openSuccessor(trx, draw, by);
    return { closed: true, successorId };
  }

  /** One round trip: the draw, its product, its counts and the config are read in parallel. */
  async function get(id: number): Promise<DrawView> {
    const [d, cfg, counts, products] = await Promise.all([
      q.findDraw(db, id),
      readAppConfig(db),
      q.countsByDraw(db, [id]),
      db('infoproducts')
        .whereIn('id', db('draws').where({ id }).select('infoproduct_id'))
        .select('id', 'title', 'sku', 'cover_url', 'price_cents')
        .then((rows: ProductBrief[]) => new Map(rows.map((r) => [r.id, r]))),
    ]);
    if (!d) throw errors.notFound('draw_not_found', 'Sorteio não encontrado.');
    return (await views([d], db, { cfg, counts, products }))[0];
  }

  async function list(query: unknown): Promise<DrawView[]> {
    const f = DrawListQuery.parse(query);
    const qb = db('draws').orderBy('id', 'desc').limit(f.limit);
    if (f.infoproduct_id) qb.where({ infoproduct_id: f.infoproduct_id });
    if (f.status) qb.whereIn('status', DRAW_STATUS_FILTERS[f.status]);
    return views(await qb);
  }

  /** One round trip: the draw and its numbers in parallel. */
  async function board(drawId: number): Promise<DrawBoard> {
    const [d, nums] = await Promise.all([q.findDraw(db, drawId), q.boardNumbers(db, drawId)]);
    if (!d) throw errors.notFound('draw_not_found', 'Sorteio não encontrado.');
    return { draw_id: drawId, status: drawStatusWord(d.status), total_numbers: d.total_numbers, numbers: nums.map(serializeNumber) };
  }

  const service: DrawsService = {
    views,

    get,
    list,
    board,

    boardJson(drawId) {
      return cache.get(`board:${drawId}`, async () => ({ body: await board(drawId), drawIds: [drawId] }));
    },

    getJson(id) {
      return cache.get(`draw:${id}`, async () => ({ body: await get(id), drawIds: [id] }));
    },

    listJson(query) {
      const f = DrawListQuery.parse(query);
      return cache.get(`draws:${f.infoproduct_id ?? ''}:${f.status ?? ''}:${f.limit}`, async () => {
        const items = await list(f);
        return { body: { items }, drawIds: items.map((d) => d.id) };
      });
    },

    async numbers(drawId) {
      return (await q.boardNumbers(db, drawId)).map(serializeNumber);
    },

    async ensureOpenDraw(infoproductId) {
      const existing = await q.findOpenDrawOfProduct(db, infoproductId);
      if (existing) return existing;
      try {
        return await db.transaction(async (trx) => {
          const product = await trx('infoproducts').where({ id: infoproductId }).forShare().first();
          if (!product) throw errors.notFound('infoproduct_not_found', 'E-book não encontrado.');
          if (!product.active) throw errors.conflict('infoproduct_inactive', 'Este e-book não está à venda.');
          const again = await q.findOpenDrawOfProduct(trx, infoproductId);
          if (again) return again;
          // RULES D3, D4: an admin's close is a pause; only a first draw or a sell-out's successor opens here.
          const last: q.DrawRow | undefined = await trx('draws').where({ infoproduct_id: infoproductId }).orderBy('id', 'desc').first();
          // (An open one committed meanwhile by a concurrent call is that call's draw: answer it.)
          if (last?.status === 'open') return last;
          if (last && last.closed_by !== 'sellout') return null;
          // Inherit settings from the latest draw of the product, else its defaults.
          const draw = await q.insertDrawWithNumbers(trx, {
            ...(await q.nextDrawSettings(trx, product)),
            predecessor_id: last?.id ?? null,
          });
          await emitDrawOpened(trx, draw, last ? 'sellout' : 'customer');
          cache.invalidateAllAfterCommit(trx);
          return draw;
        });
      } catch (e) {
        // A concurrent call opened it first: the partial unique index (and one successor per draw) guarantee one.
        if (isUniqueViolation(e, 'draws_one_open_per_product') || isUniqueViolation(e, 'draws_predecessor_id_key')) {
          const winner = await q.findOpenDrawOfProduct(db, infoproductId);
          if (winner) return winner;
        }
        throw e;
      }
    },

    async latestDrawOf(infoproductId) {
      const open = await q.findOpenDrawOfProduct(db, infoproductId);
      if (open) return open;
      return (await db('draws').where({ infoproduct_id: infoproductId }).orderBy('id', 'desc').first()) ?? null;
    },

    async closeIfSoldOut(trx, drawId) {
      const left = await trx('draw_numbers').where({ draw_id: drawId }).whereNot({ status: 'sold' }).count<{ c: number }[]>({ c: '*' });
      if (Number(left[0].c) > 0) return { closed: false, successorId: null };
      const r = await closeAndOpenSuccessor(trx, drawId, 'sellout');
      if (r.closed) deps.logger.info({ drawId, successorId: r.successorId }, 'draw sold out: closed and successor opened');
      return r;
    },

    closeAndOpenSuccessor,

    // The main series' open draw; when it has none (or no main series is set), the newest open draw.
    async currentDrawId(cfg) {
      return (await currentDraw(db, cfg ?? (await readAppConfig(db))))?.id ?? null;
    },

    currentDraw: (cfg) => currentDraw(db, cfg),
    closeOpenDrawOfArchived,

    invalidateBoard(drawId) {
      cache.invalidateDraw(drawId);
    },

    opened: (trx, draw, by) => emitDrawOpened(trx, draw, by),

    async openDrawOfProduct(trx, product) {
      const open = await q.findOpenDrawOfProduct(trx, product.id);
      if (open) return open.id;
      const d = await q.insertDrawWithNumbers(trx, await q.nextDrawSettings(trx, product));
      await emitDrawOpened(trx, d, 'admin');
      return d.id;
    },
  };
  return service;
}

/** Why a draw was opened or closed (draws.opened_by / closed_by). */
export type DrawChangeReason = 'sellout' | 'admin';
export type DrawOpenReason = DrawChangeReason | 'customer';

/**
 * "draw opened" event, written in the opening transaction, with the reason recorded on the draw
 * (opened_by); in the same transaction the hooks run with that reason (wired in services.ts:
 * autopay holds the captive numbers only of a draw opened by sell-out succession or by an admin,
 * RULES A3, D5). The worker's outbox relay turns the event into the autopay.charge job.
 */
async function recordDrawOpened(trx: Trx, draw: q.DrawRow, by: DrawOpenReason, hooks: DrawOpenedHook[]) {
  await trx('draws').where({ id: draw.id }).update({ opened_by: by, closed_by: null });
  await emitEvent(trx, 'draw.opened', { drawId: draw.id, infoproductId: draw.infoproduct_id, by });
  for (const hook of hooks) await hook(trx, draw, by);
}

import { z } from 'zod';
import type { Db, Trx } from '../platform/db';
import { isUniqueViolation } from '../platform/db';
import { errors } from '../platform/errors';
import { emitEvent } from '../platform/events';
import { audit } from '../platform/audit';
import { Id, PageLimit, PageOffset } from '../platform/validation';
import { parseId } from '../shared/validation';
import { readAppConfig, writeAppConfig } from '../platform/app-config';
import type { ReadCache } from '../platform/read-cache';
import type { Logger } from '../platform/logger';
import * as q from './queries';
import { resultAlertsFor } from './result-alerts';
import type { DrawsService } from './service';
import { DRAW_STATUS_FILTER_NAMES, DRAW_STATUS_FILTERS, drawStatusWord } from './serializers';
import type { DrawStatus } from '../shared/api/draws';
import type { AdminDraw, AdminDrawChange, DashboardSummary, NewSeriesResult } from '../shared/api/admin-draws';

/**
 * The admin console's draws (RULES D3, D6, N7): dashboard summary, 'NOVO SORTEIO', ticket price and the
 * draws table. Every write runs in one transaction, locks the draw row before the product row
 * (the order of the sale paths, so no deadlock), writes an audit entry with before/after and
 * drops the cached public reads once it commits.
 */

export const AdminDrawId = Id('Sorteio inválido.');

/** The spec's status words (open/aberto, closed/fechado); `drawn` is never set by hand. */
const StatusInput = z
  .string({ error: 'Status inválido. Use open ou closed.' })
  .trim()
  .toLowerCase()
  .transform((v, ctx) => {
    if (v === 'open' || v === 'aberto') return 'open' as const;
    if (v === 'closed' || v === 'fechado') return 'closed' as const;
    ctx.addIssue({ code: 'custom', message: 'Status inválido. Use open ou closed.' });
    return z.NEVER;
  });

/** A whole number from a JSON number or a numeric text, floored (spec §5 "floored"). */
const floored = (label: string) =>
  z.unknown().transform((v, ctx) => {
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : NaN;
    if (v === undefined) ctx.addIssue({ code: 'custom', message: 'Campo obrigatório.' });
    else if (!Number.isFinite(n) || !Number.isSafeInteger(Math.floor(n))) ctx.addIssue({ code: 'custom', message: `${label} deve ser um número.` });
    else return Math.floor(n);
    return z.NEVER;
  });

const Title = z.string({ error: 'O título deve ser um texto.' }).trim().min(1, 'Informe o título do sorteio.').max(200, 'O título pode ter no máximo 200 caracteres.');
const Price = floored('O preço').pipe(z.number().min(0, 'O preço não pode ser negativo.').max(100_000_000, 'O preço é alto demais.'));
const Total = floored('A quantidade de números').pipe(
  z.number().min(1, 'A quantidade de números deve ser pelo menos 1.').max(1000, 'A quantidade de números pode ser no máximo 1000.'),
);
const MaxPerUser = floored('O limite por usuário').pipe(z.number().min(0, 'O limite por usuário não pode ser negativo.').max(1000, 'O limite por usuário pode ser no máximo 1000.'));
const Prize = floored('O prêmio').pipe(z.number().min(0, 'O prêmio não pode ser negativo.').max(1_000_000_000, 'O prêmio é alto demais.'));
/** An e-book id by the one id rule, or null / '' for a draw without e-book. */
const ProductRef = z.unknown().transform((v, ctx): number | null => {
  if (v === null || v === '') return null;
  const id = parseId(v);
  if (id === null) {
    ctx.addIssue({ code: 'custom', message: 'E-book inválido.' });
    return z.NEVER;
  }
  return id;
});

/** The dialog's body with the spec's names and aliases; every field optional (create fills defaults). */
const DrawFields = z
  .object({
    title: Title.optional(),
    name: Title.optional(),
    status: StatusInput.optional(),
    price_cents: Price.nullable().optional(),
    ticket_price_cents: Price.nullable().optional(),
    numbers_total: Total.optional(),
    total_numbers: Total.optional(),
    max_per_user: MaxPerUser.optional(),
    limit_per_user: MaxPerUser.optional(),
    prize_cents: Prize.optional(),
    infoproduct_id: ProductRef.optional(),
  })
  .transform((v) => ({
    title: v.title ?? v.name,
    status: v.status,
    // A positive price is the draw's own; 0 or null means "the product's price, else the config's" (spec §5).
    price: v.price_cents !== undefined ? v.price_cents : v.ticket_price_cents,
    total_numbers: v.numbers_total ?? v.total_numbers,
    max_per_user: v.max_per_user ?? v.limit_per_user,
    prize_cents: v.prize_cents,
    infoproduct_id: v.infoproduct_id,
  }));
type DrawFields = z.output<typeof DrawFields>;

export const CreateDrawCommand = DrawFields.refine((v) => v.title !== undefined, { message: 'Informe o título do sorteio.', path: ['title'] });
export const UpdateDrawCommand = DrawFields.refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'Nada para alterar.' });
export const StatusCommand = z.object({ status: StatusInput }, { error: 'Envie um objeto JSON.' });
export const TicketPriceCommand = z.object({
  price_cents: floored('O preço do bilhete').pipe(z.number().min(0, 'O preço do bilhete não pode ser negativo.').max(100_000_000, 'O preço do bilhete é alto demais.')),
});
/** The draw and the sold count the admin confirmed ('NOVO SORTEIO'); both optional, checked when sent. */
export const NewSeriesCommand = z.object({
  draw_id: AdminDrawId.optional(),
  confirm_sold: floored('A quantidade de vendidos').pipe(z.number().min(0)).optional(),
});
export const AdminDrawListQuery = z.object({
  limit: PageLimit(200, 50),
  offset: PageOffset(),
  status: z.enum(DRAW_STATUS_FILTER_NAMES, { error: 'Status inválido. Use open, closed ou sorteado.' }).optional(),
  infoproduct_id: Id('E-book inválido.').optional(),
  search: z.string().trim().max(100, 'A busca pode ter no máximo 100 caracteres.').optional(),
});

/** Declared once in src/shared/api/admin-draws.ts (the admin console reads the same type). */
export type AdminDrawView = AdminDraw;

export interface AdminDrawsService {
  summary(): Promise<DashboardSummary>;
  newSeries(adminId: number, input: unknown): Promise<NewSeriesResult>;
  setTicketPrice(adminId: number, input: unknown): Promise<DashboardSummary>;
  list(query: unknown): Promise<{ items: AdminDrawView[]; hasMore: boolean; limit: number; offset: number }>;
  get(id: number): Promise<AdminDrawView>;
  /** `adminId` null: the operator CLI (audited as actor 'cli'). */
  create(adminId: number | null, input: unknown): Promise<AdminDrawView>;
  update(adminId: number, id: number, input: unknown): Promise<AdminDrawChange>;
  setStatus(adminId: number | null, id: number, input: unknown): Promise<AdminDrawChange>;
  remove(adminId: number, id: number): Promise<{ ok: true; id: number }>;
  board(id: number): Promise<{ draw_id: number; status: DrawStatus; total_numbers: number; numbers: Array<{ n: number; state: string; status: string; owner_user_id: number | null; owner_name: string | null }> }>;
}

const DRAW_AUDIT_FIELDS = ['title', 'status', 'infoproduct_id', 'total_numbers', 'prize_cents', 'ticket_price_cents_override', 'max_per_user', 'closed_at'] as const;
function snapshot(d: q.DrawRow | undefined | null) {
  if (!d) return null;
  const out: Record<string, unknown> = { id: d.id };
  for (const k of DRAW_AUDIT_FIELDS) out[k] = d[k];
  return out;
}

const notFound = () => errors.notFound('draw_not_found', 'Sorteio não encontrado.');
const secondOpen = () => errors.conflict('draw_already_open', 'Este e-book já tem um sorteio aberto. Feche-o antes de abrir outro.');

export function createAdminDrawsService(deps: { db: Db; draws: DrawsService; readCache: ReadCache; logger: Logger }): AdminDrawsService {
  const { db, draws } = deps;

  /**
   * The draws among `ids` that ever took a hold, a sale (even voided), a payment or an autopay
   * run: such a draw is closed, never erased, and its total and e-book stay.
   */
  async function usedDraws(conn: Trx | Db, ids: number[]): Promise<Set<number>> {
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
  const hasHistory = async (conn: Trx | Db, id: number) => (await usedDraws(conn, [id])).has(id);

  async function productOf(trx: Trx, id: number) {
    const p = await q.lockProduct(trx, id);
    if (!p) throw errors.notFound('infoproduct_not_found', 'E-book não encontrado.');
    return p;
  }

  /** The unique index is the last word on "one open draw per product": its violation is a 409. */
  async function guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      if (isUniqueViolation(e, 'draws_one_open_per_product')) throw secondOpen();
      throw e;
    }
  }

  async function views(rows: q.DrawRow[]): Promise<AdminDrawView[]> {
    const base = await draws.views(rows, db, { fullWinnerNames: true });
    const productIds = [...new Set(rows.map((r) => r.infoproduct_id).filter((x): x is number => x != null))];
    const products: Array<{ id: number; title: string; price_cents: number | null }> = productIds.length
      ? await db('infoproducts').whereIn('id', productIds).select('id', 'title', 'price_cents')
      : [];
    const used = await usedDraws(db, rows.map((r) => r.id));
    const alerts = await resultAlertsFor(db, rows);
    return base.map((v) => {
      const p = v.infoproduct_id ? products.find((x) => x.id === v.infoproduct_id) : undefined;
      return {
        ...v,
        ip_title: p?.title ?? null,
        ipTitle: p?.title ?? null,
        ip_price_cents: p?.price_cents ?? null,
        ipPriceCents: p?.price_cents ?? null,
        deletable: !used.has(v.id),
        result_alert: alerts.get(v.id) ?? null,
      };
    });
  }

  async function get(id: number) {
    const d = await q.findDraw(db, id);
    if (!d) throw notFound();
    return (await views([d]))[0];
  }

  /** Opens a closed draw in `trx` (its row already locked): one open draw per product, never a sold-out one. */
  async function reopen(trx: Trx, d: q.DrawRow): Promise<q.DrawRow> {
    if (d.infoproduct_id) {
      await productOf(trx, d.infoproduct_id);
      const other = await q.findOpenDrawOfProduct(trx, d.infoproduct_id);
      if (other && other.id !== d.id) throw secondOpen();
    }
    const left = await trx('draw_numbers').where({ draw_id: d.id }).whereNot({ status: 'sold' }).count<{ c: number }[]>({ c: '*' });
    if (Number(left[0].c) === 0) throw errors.conflict('draw_sold_out', 'Todos os números deste sorteio já foram vendidos: ele não pode ser reaberto.');
    const [after] = await trx('draws').where({ id: d.id }).update({ status: 'open', closed_at: null, updated_at: trx.fn.now() }).returning('*');
    await deps.draws.opened(trx, after, 'admin');
    return after;
  }

  async function close(trx: Trx, d: q.DrawRow): Promise<q.DrawRow> {
    // DESIGN §2: an admin's close is a pause (closed_by 'admin'): ensure-open-draw opens no successor.
    const [after] = await trx('draws').where({ id: d.id }).update({ status: 'closed', closed_by: 'admin', closed_at: trx.fn.now(), updated_at: trx.fn.now() }).returning('*');
    await emitEvent(trx, 'draw.closed', { drawId: d.id, by: 'admin' });
    return after;
  }

  /** open ⇄ closed; `drawn` is final. Returns the row after the change (the same row when nothing changes). */
  async function changeStatus(trx: Trx, d: q.DrawRow, status: 'open' | 'closed'): Promise<q.DrawRow> {
    if (d.status === 'drawn') throw errors.conflict('draw_drawn', 'Este sorteio já foi realizado: o status não pode mais mudar.');
    if (d.status === status) return d;
    return status === 'open' ? reopen(trx, d) : close(trx, d);
  }

  async function lockedDraw(trx: Trx, id: number) {
    const d = await q.lockDraw(trx, id, 'update');
    if (!d) throw notFound();
    return d;
  }

  /**
   * 'NOVO SORTEIO' when the main series has no open draw: opens one with its latest draw's
   * settings (else the e-book's defaults). Nothing is closed; a second one racing it meets the
   * product lock (then the one-open-draw index) and answers 409.
   */
  async function openMainDraw(trx: Trx, adminId: number, productId: number): Promise<NewSeriesResult> {
    const product = await productOf(trx, productId);
    if (!product.active) throw errors.conflict('infoproduct_inactive', 'O e-book da série principal não está à venda: ative-o antes de abrir um sorteio.');
    if (await q.findOpenDrawOfProduct(trx, productId)) throw secondOpen();
    const full = await trx('infoproducts').where({ id: productId }).first('id', 'title', 'default_total_numbers', 'default_prize_cents');
    const opened = await q.insertDrawWithNumbers(trx, await q.nextDrawSettings(trx, full));
    await deps.draws.opened(trx, opened, 'admin');
    await audit(trx, { actorUserId: adminId, actor: 'admin', action: 'draw.new_series', entity: 'draw', entityId: opened.id, data: { before: null, after: { closed: null, opened: snapshot(opened) }, sold: 0 } });
    deps.readCache.invalidateAllAfterCommit(trx);
    deps.logger.info({ drawId: opened.id, adminId }, 'admin: main series had no open draw; opened one');
    return { closed_draw_id: null, draw_id: opened.id, sold: 0 };
  }

  /**
   * After a change that closed draw `before` (open before, closed now): when it was the main
   * series' draw, the words saying that the store has no current draw of the main series until
   * one is opened (DESIGN §2: an admin's close is a pause; nothing reopens it but an admin).
   */
  async function closeNotice(before: q.DrawRow, after: AdminDrawView): Promise<AdminDrawChange> {
    if (before.status !== 'open' || after.status !== 'closed' || !before.infoproduct_id) return after;
    const cfg = await readAppConfig(db);
    if (cfg.main_infoproduct_id !== before.infoproduct_id) return after;
    const current = await draws.currentDrawId(cfg);
    const notice = current
      ? `Este era o sorteio atual da série principal: ela fica sem sorteio aberto até que um seja aberto (reabra este ou use NOVO SORTEIO). Enquanto isso, o sorteio exibido como atual é o #${current}.`
      : 'Este era o sorteio atual: a loja fica sem sorteio atual até que um seja aberto (reabra este ou use NOVO SORTEIO).';
    return { ...after, notice };
  }

  const service: AdminDrawsService = {
    async summary() {
      const cfg = await readAppConfig(db);
      const drawId = await draws.currentDrawId(cfg);
      const view = drawId ? (await draws.views([(await q.findDraw(db, drawId))!], db, { cfg }))[0] : null;
      return {
        draw_id: view?.id ?? null,
        title: view?.title ?? null,
        status: view?.status ?? null,
        infoproduct_id: view?.infoproduct_id ?? cfg.main_infoproduct_id,
        main_infoproduct_id: cfg.main_infoproduct_id,
        total_numbers: view?.total_numbers ?? 0,
        sold: view?.sold ?? 0,
        reserved: view?.reserved ?? 0,
        available: view?.available ?? 0,
        // Not sold yet: free plus held (a held number may still be released).
        remaining: view ? view.total_numbers - view.sold : 0,
        price_cents: view?.price_cents ?? cfg.ticket_price_cents,
        ticket_price_cents: view?.price_cents ?? cfg.ticket_price_cents,
        config_ticket_price_cents: cfg.ticket_price_cents,
        max_per_user: view?.max_per_user ?? null,
        max_numbers_per_selection: cfg.max_numbers_per_selection,
        banner_title: cfg.banner_title,
      };
    },

    async newSeries(adminId, input) {
      const cmd = NewSeriesCommand.parse(input);
      const cfg = await readAppConfig(db);
      if (!cfg.main_infoproduct_id) throw errors.conflict('no_main_series', 'Nenhuma série principal configurada (main_infoproduct_id).');
      const productId = cfg.main_infoproduct_id;
      return guarded(() =>
        db.transaction(async (trx): Promise<NewSeriesResult> => {
          const current = await q.findOpenDrawOfProduct(trx, productId);
          // Nothing of the main series to close (sold out and paused, or never opened): open its draw.
          if (!current) return openMainDraw(trx, adminId, productId);
          if (cmd.draw_id !== undefined && cmd.draw_id !== current.id) throw errors.conflict('draw_changed', 'O sorteio atual mudou. Confira os números e confirme de novo.');
          // Draw row first (as the sale paths), then re-check: a sell-out may have closed it meanwhile.
          const locked = await lockedDraw(trx, current.id);
          if (locked.status !== 'open') throw errors.conflict('draw_changed', 'O sorteio atual mudou. Confira os números e confirme de novo.');
          const counts = (await q.countsByDraw(trx, [locked.id])).get(locked.id);
          const sold = counts?.sold ?? 0;
          if (cmd.confirm_sold !== undefined && cmd.confirm_sold !== sold)
            throw errors.conflict('draw_changed', `O sorteio atual já tem ${sold} ${sold === 1 ? 'número vendido' : 'números vendidos'}. Confira e confirme de novo.`, { sold });
          const r = await draws.closeAndOpenSuccessor(trx, locked.id, 'admin');
          if (!r.successorId) throw errors.conflict('draw_changed', 'O sorteio atual mudou. Confira os números e confirme de novo.');
          const after = await q.findDraw(trx, r.successorId);
          await audit(trx, {
            actorUserId: adminId,
            actor: 'admin',
            action: 'draw.new_series',
            entity: 'draw',
            entityId: locked.id,
            data: { before: snapshot(locked), after: { closed: snapshot(await q.findDraw(trx, locked.id)), opened: snapshot(after) }, sold },
          });
          deps.logger.info({ drawId: locked.id, successorId: r.successorId, adminId, sold }, 'admin: new draw of the main series');
          return { closed_draw_id: locked.id, draw_id: r.successorId, sold };
        }),
      );
    },

    async setTicketPrice(adminId, input) {
      const { price_cents } = TicketPriceCommand.parse(input);
      // The dashboard shows the current draw's price: it becomes that draw's own (its successors inherit it).
      const currentId = await draws.currentDrawId();
      await db.transaction(async (trx) => {
        const cfg = await readAppConfig(trx);
        const before: Record<string, unknown> = { config_ticket_price_cents: cfg.ticket_price_cents };
        const after: Record<string, unknown> = { config_ticket_price_cents: price_cents };
        await writeAppConfig(trx, { ticket_price_cents: price_cents });
        if (currentId) {
          const d = await lockedDraw(trx, currentId);
          if (d.status !== 'open') throw errors.conflict('draw_changed', 'O sorteio atual mudou. Confira e salve de novo.');
          before.draw = snapshot(d);
          const [a] = await trx('draws').where({ id: d.id }).update({ ticket_price_cents_override: price_cents, updated_at: trx.fn.now() }).returning('*');
          after.draw = snapshot(a);
        }
        await audit(trx, { actorUserId: adminId, actor: 'admin', action: 'draw.ticket_price', entity: 'app_config', entityId: 'ticket_price_cents', data: { before, after } });
        deps.readCache.invalidateAllAfterCommit(trx);
      });
      return service.summary();
    },

    async list(query) {
      const f = AdminDrawListQuery.parse(query);
      const qb = db('draws').orderBy('id', 'desc').limit(f.limit + 1).offset(f.offset);
      if (f.status) qb.whereIn('status', DRAW_STATUS_FILTERS[f.status]);
      if (f.infoproduct_id) qb.where({ infoproduct_id: f.infoproduct_id });
      if (f.search) {
        const term = f.search;
        qb.where((w) => {
          w.whereRaw('title ILIKE ?', [`%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`]);
          if (/^\d{1,15}$/.test(term)) w.orWhere({ id: Number(term) });
        });
      }
      const rows: q.DrawRow[] = await qb;
      const hasMore = rows.length > f.limit;
      return { items: await views(rows.slice(0, f.limit)), hasMore, limit: f.limit, offset: f.offset };
    },

    get,

    async create(adminId, input) {
      const cmd = CreateDrawCommand.parse(input);
      const id = await guarded(() =>
        db.transaction(async (trx) => {
          const status = cmd.status ?? 'open';
          let prize = cmd.prize_cents ?? 0;
          let total = cmd.total_numbers ?? 100;
          if (cmd.infoproduct_id) {
            await productOf(trx, cmd.infoproduct_id);
            const product = await trx('infoproducts').where({ id: cmd.infoproduct_id }).first('default_prize_cents', 'default_total_numbers');
            if (cmd.prize_cents === undefined) prize = product.default_prize_cents;
            if (cmd.total_numbers === undefined) total = product.default_total_numbers;
            if (status === 'open' && (await q.findOpenDrawOfProduct(trx, cmd.infoproduct_id))) throw secondOpen();
          }
          const d = await q.insertDrawWithNumbers(trx, {
            infoproduct_id: cmd.infoproduct_id ?? null,
            title: cmd.title!,
            total_numbers: total,
            prize_cents: prize,
            ticket_price_cents_override: cmd.price ? cmd.price : null,
            max_per_user: cmd.max_per_user ?? 1,
            status,
          });
          if (status === 'closed') await trx('draws').where({ id: d.id }).update({ closed_at: trx.fn.now(), closed_by: 'admin' });
          else await deps.draws.opened(trx, d, 'admin');
          await audit(trx, { actorUserId: adminId, actor: adminId === null ? 'cli' : 'admin', action: 'draw.created', entity: 'draw', entityId: d.id, data: { before: null, after: snapshot(await q.findDraw(trx, d.id)) } });
          deps.readCache.invalidateAllAfterCommit(trx);
          return d.id;
        }),
      );
      return get(id);
    },

    async update(adminId, id, input) {
      const cmd: DrawFields = UpdateDrawCommand.parse(input);
      let was: q.DrawRow | undefined;
      await guarded(() =>
        db.transaction(async (trx) => {
          const before = await lockedDraw(trx, id);
          was = before;
          // Closing applies first, opening last: "close it and move it to another e-book" works in one call.
          if (cmd.status === 'closed') await changeStatus(trx, before, 'closed');
          const patch: Record<string, unknown> = {};
          if (cmd.title !== undefined) patch.title = cmd.title;
          if (cmd.price !== undefined) patch.ticket_price_cents_override = cmd.price ? cmd.price : null;
          if (cmd.max_per_user !== undefined) patch.max_per_user = cmd.max_per_user;
          if (cmd.prize_cents !== undefined) patch.prize_cents = cmd.prize_cents;
          const totalChanges = cmd.total_numbers !== undefined && cmd.total_numbers !== before.total_numbers;
          const productChanges = cmd.infoproduct_id !== undefined && cmd.infoproduct_id !== before.infoproduct_id;
          if ((totalChanges || productChanges) && before.status === 'drawn') throw errors.conflict('draw_drawn', 'Este sorteio já foi realizado: ele não pode mais ser alterado.');
          if ((totalChanges || productChanges) && (await hasHistory(trx, id)))
            throw errors.conflict('draw_in_use', 'Este sorteio já tem reservas ou vendas: a quantidade de números e o e-book não podem mais mudar.');
          if (productChanges) {
            if (cmd.infoproduct_id) await productOf(trx, cmd.infoproduct_id);
            patch.infoproduct_id = cmd.infoproduct_id;
          }
          if (Object.keys(patch).length) await trx('draws').where({ id }).update({ ...patch, updated_at: trx.fn.now() });
          if (totalChanges) {
            // No number was ever held or sold (checked above): the rows are rebuilt for the new total.
            await trx('draw_numbers').where({ draw_id: id }).del();
            await trx.raw(`INSERT INTO draw_numbers (draw_id, n) SELECT ?, g FROM generate_series(0, ? - 1) g`, [id, cmd.total_numbers!]);
            await trx('draws').where({ id }).update({ total_numbers: cmd.total_numbers });
          }
          let after = (await q.findDraw(trx, id))!;
          // A new product for an open draw: that product must not have another open draw.
          if (productChanges && after.status === 'open' && after.infoproduct_id) {
            const other = await q.findOpenDrawOfProduct(trx, after.infoproduct_id);
            if (other && other.id !== id) throw secondOpen();
          }
          if (cmd.status === 'open') after = await changeStatus(trx, after, 'open');
          await audit(trx, { actorUserId: adminId, actor: 'admin', action: 'draw.updated', entity: 'draw', entityId: id, data: { before: snapshot(before), after: snapshot(after) } });
          deps.readCache.invalidateAllAfterCommit(trx);
        }),
      );
      return closeNotice(was!, await get(id));
    },

    async setStatus(adminId, id, input) {
      const { status } = StatusCommand.parse(input);
      let was: q.DrawRow | undefined;
      await guarded(() =>
        db.transaction(async (trx) => {
          const before = await lockedDraw(trx, id);
          was = before;
          const after = await changeStatus(trx, before, status);
          if (after === before) return;
          await audit(trx, { actorUserId: adminId, actor: adminId === null ? 'cli' : 'admin', action: 'draw.status_changed', entity: 'draw', entityId: id, data: { before: snapshot(before), after: snapshot(after) } });
          deps.readCache.invalidateAllAfterCommit(trx);
        }),
      );
      return closeNotice(was!, await get(id));
    },

    async remove(adminId, id) {
      await db.transaction(async (trx) => {
        const before = await lockedDraw(trx, id);
        if (before.status === 'drawn' || (await hasHistory(trx, id)))
          throw errors.conflict('draw_has_sales', 'Este sorteio já tem vendas ou reservas e não pode ser excluído. Feche-o em vez de excluir.');
        await trx('draws').where({ id }).del();
        await audit(trx, { actorUserId: adminId, actor: 'admin', action: 'draw.deleted', entity: 'draw', entityId: id, data: { before: snapshot(before), after: null } });
        deps.readCache.invalidateAllAfterCommit(trx);
      });
      return { ok: true as const, id };
    },

    async board(id) {
      const [d, nums] = await Promise.all([q.findDraw(db, id), q.boardNumbers(db, id)]);
      if (!d) throw notFound();
      return {
        draw_id: d.id,
        status: drawStatusWord(d.status),
        total_numbers: d.total_numbers,
        numbers: nums.map((b) => ({ n: b.n, state: b.status, status: b.status, owner_user_id: b.owner_user_id, owner_name: b.owner_name })),
      };
    },
  };
  return service;
}

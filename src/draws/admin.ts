import type { Db, Trx } from '../platform/db';
import { isUniqueViolation } from '../platform/db';
import { errors } from '../platform/errors';
import { emitEvent } from '../platform/events';
import { audit } from '../platform/audit';
import { readAppConfig, writeAppConfig } from '../platform/app-config';
import type { ReadCache } from '../platform/read-cache';
import type { Logger } from '../platform/logger';
import * as q from './queries';
import type { DrawsService } from './service';
import type { DrawStatus } from '../shared/api/draws';
import type { AdminDraw, AdminDrawChange, DashboardSummary, NewSeriesResult } from '../shared/api/admin-draws';
import {
  CreateDrawCommand,
  UpdateDrawCommand,
  StatusCommand,
  TicketPriceCommand,
  NewSeriesCommand,
  drawAuditSnapshot as snapshot,
  type DrawFields,
} from './admin-schemas';
import { adminBoard, adminDrawList, adminDrawViews, adminSummary, closeNotice } from './admin-reads';

/**
 * The admin console's draws (RULES D3, D6, N7): dashboard summary, 'NOVO SORTEIO', ticket price and the
 * draws table. Every write runs in one transaction, locks the draw row before the product row
 * (the order of the sale paths, so no deadlock), writes an audit entry with before/after and
 * drops the cached public reads once it commits.
 */

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
  board(id: number): Promise<{
    draw_id: number;
    status: DrawStatus;
    total_numbers: number;
    numbers: Array<{ n: number; state: string; status: string; owner_user_id: number | null; owner_name: string | null }>;
  }>;
}

const notFound = () => errors.notFound('draw_not_found', 'Sorteio não encontrado.');
const secondOpen = () => errors.conflict('draw_already_open', 'Este e-book já tem um sorteio aberto. Feche-o antes de abrir outro.');

export function createAdminDrawsService(deps: { db: Db; draws: DrawsService; readCache: ReadCache; logger: Logger }): AdminDrawsService {
  const { db, draws } = deps;

  const hasHistory = async (conn: Trx | Db, id: number) => (await q.usedDraws(conn, [id])).has(id);

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
    if (Number(left[0].c) === 0)
      throw errors.conflict('draw_sold_out', 'Todos os números deste sorteio já foram vendidos: ele não pode ser reaberto.');
    const [after] = await trx('draws')
      .where({ id: d.id })
      .update({ status: 'open', closed_at: null, updated_at: trx.fn.now() })
      .returning('*');
    await deps.draws.opened(trx, after, 'admin');
    return after;
  }

  async function close(trx: Trx, d: q.DrawRow): Promise<q.DrawRow> {
    // RULES D3: an admin's close is a pause (closed_by 'admin'): ensure-open-draw opens no successor.
    const [after] = await trx('draws')
      .where({ id: d.id })
      .update({ status: 'closed', closed_by: 'admin', closed_at: trx.fn.now(), updated_at: trx.fn.now() })
      .returning('*');
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
    if (!product.active)
      throw errors.conflict('infoproduct_inactive', 'O e-book da série principal não está à venda: ative-o antes de abrir um sorteio.');
    if (await q.findOpenDrawOfProduct(trx, productId)) throw secondOpen();
    const full = await trx('infoproducts').where({ id: productId }).first('id', 'title', 'default_total_numbers', 'default_prize_cents');
    const opened = await q.insertDrawWithNumbers(trx, await q.nextDrawSettings(trx, full));
    await deps.draws.opened(trx, opened, 'admin');
    await audit(trx, {
      actorUserId: adminId,
      actor: 'admin',
      action: 'draw.new_series',
      entity: 'draw',
      entityId: opened.id,
      data: { before: null, after: { closed: null, opened: snapshot(opened) }, sold: 0 },
    });
    deps.readCache.invalidateAllAfterCommit(trx);
    deps.logger.info({ drawId: opened.id, adminId }, 'admin: main series had no open draw; opened one');
    return { closed_draw_id: null, draw_id: opened.id, sold: 0 };
  }

  /**
   * After a change that closed draw `before` (open before, closed now): when it was the main
   * series' draw, the words saying that the store has no current draw of the main series until
   * one is opened (RULES D3: an admin's close is a pause; nothing reopens it but an admin).
   */
  const views = (rows: q.DrawRow[]) => adminDrawViews(db, draws, rows);

  const service: AdminDrawsService = {
    summary: () => adminSummary(db, draws),
    list: (query) => adminDrawList(db, draws, query),
    board: (id) => adminBoard(db, id),
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
          if (cmd.draw_id !== undefined && cmd.draw_id !== current.id)
            throw errors.conflict('draw_changed', 'O sorteio atual mudou. Confira os números e confirme de novo.');
          // Draw row first (as the sale paths), then re-check: a sell-out may have closed it meanwhile.
          const locked = await lockedDraw(trx, current.id);
          if (locked.status !== 'open')
            throw errors.conflict('draw_changed', 'O sorteio atual mudou. Confira os números e confirme de novo.');
          const counts = (await q.countsByDraw(trx, [locked.id])).get(locked.id);
          const sold = counts?.sold ?? 0;
          if (cmd.confirm_sold !== undefined && cmd.confirm_sold !== sold)
            throw errors.conflict(
              'draw_changed',
              `O sorteio atual já tem ${sold} ${sold === 1 ? 'número vendido' : 'números vendidos'}. Confira e confirme de novo.`,
              { sold },
            );
          const r = await draws.closeAndOpenSuccessor(trx, locked.id, 'admin');
          if (!r.successorId) throw errors.conflict('draw_changed', 'O sorteio atual mudou. Confira os números e confirme de novo.');
          const after = await q.findDraw(trx, r.successorId);
          await audit(trx, {
            actorUserId: adminId,
            actor: 'admin',
            action: 'draw.new_series',
            entity: 'draw',
            entityId: locked.id,
            data: {
              before: snapshot(locked),
              after: { closed: snapshot(await q.findDraw(trx, locked.id)), opened: snapshot(after) },
              sold,
            },
          });
          deps.logger.info({ drawId: locked.id, successorId: r.successorId, adminId, sold }, 'admin: new draw of the main series');
          return { closed_draw_id: locked.id, draw_id: r.successorId, sold };
        }),
      );
    },

    async setTicketPrice(adminId, input) {
      const { price_cents } = TicketPriceCommand.parse(input);
      // RULES N9: the price shown is the current draw's; it becomes that draw's own (its successors
      // inherit it). The config's price is only the fallback, written here when there is no current draw.
      // An unchanged price (the dashboard saved as it was read) writes nothing.
      const currentId = await draws.currentDrawId();
      await db.transaction(async (trx) => {
        const cfg = await readAppConfig(trx);
        if (currentId) {
          const d = await lockedDraw(trx, currentId);
          if (d.status !== 'open') throw errors.conflict('draw_changed', 'O sorteio atual mudou. Confira e salve de novo.');
          const [view] = await draws.views([d], trx, { cfg });
          if (view.price_cents === price_cents) return;
          const [a] = await trx('draws')
            .where({ id: d.id })
            .update({ ticket_price_cents_override: price_cents, updated_at: trx.fn.now() })
            .returning('*');
          await audit(trx, {
            actorUserId: adminId,
            actor: 'admin',
            action: 'draw.ticket_price',
            entity: 'draw',
            entityId: d.id,
            data: { before: { price_cents: view.price_cents, draw: snapshot(d) }, after: { price_cents, draw: snapshot(a) } },
          });
        } else {
          if (cfg.ticket_price_cents === price_cents) return;
          await writeAppConfig(trx, { ticket_price_cents: price_cents });
          await audit(trx, {
            actorUserId: adminId,
            actor: 'admin',
            action: 'draw.ticket_price',
            entity: 'app_config',
            entityId: 'ticket_price_cents',
            data: { before: { config_ticket_price_cents: cfg.ticket_price_cents }, after: { config_ticket_price_cents: price_cents } },
          });
        }
        deps.readCache.invalidateAllAfterCommit(trx);
      });
      return service.summary();
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
            const product = await trx('infoproducts')
              .where({ id: cmd.infoproduct_id })
              .first('default_prize_cents', 'default_total_numbers');
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
          await audit(trx, {
            actorUserId: adminId,
            actor: adminId === null ? 'cli' : 'admin',
            action: 'draw.created',
            entity: 'draw',
            entityId: d.id,
            data: { before: null, after: snapshot(await q.findDraw(trx, d.id)) },
          });
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
          if ((totalChanges || productChanges) && before.status === 'drawn')
            throw errors.conflict('draw_drawn', 'Este sorteio já foi realizado: ele não pode mais ser alterado.');
          if ((totalChanges || productChanges) && (await hasHistory(trx, id)))
            throw errors.conflict(
              'draw_in_use',
              'Este sorteio já tem reservas ou vendas: a quantidade de números e o e-book não podem mais mudar.',
            );
          if (productChanges) {
            if (cmd.infoproduct_id) await productOf(trx, cmd.infoproduct_id);
            patch.infoproduct_id = cmd.infoproduct_id;
          }
          if (Object.keys(patch).length)
            await trx('draws')
              .where({ id })
              .update({ ...patch, updated_at: trx.fn.now() });
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
          await audit(trx, {
            actorUserId: adminId,
            actor: 'admin',
            action: 'draw.updated',
            entity: 'draw',
            entityId: id,
            data: { before: snapshot(before), after: snapshot(after) },
          });
          deps.readCache.invalidateAllAfterCommit(trx);
        }),
      );
      return closeNotice(db, draws, was!, await get(id));
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
          await audit(trx, {
            actorUserId: adminId,
            actor: adminId === null ? 'cli' : 'admin',
            action: 'draw.status_changed',
            entity: 'draw',
            entityId: id,
            data: { before: snapshot(before), after: snapshot(after) },
          });
          deps.readCache.invalidateAllAfterCommit(trx);
        }),
      );
      return closeNotice(db, draws, was!, await get(id));
    },

    async remove(adminId, id) {
      await db.transaction(async (trx) => {
        const before = await lockedDraw(trx, id);
        // RULES D9: a decided draw is history (its result, winner and sales), never erased.
        if (before.status === 'drawn') throw errors.conflict('draw_drawn', 'Este sorteio já foi realizado: ele não pode ser excluído.');
        if (await hasHistory(trx, id))
          throw errors.conflict(
            'draw_has_sales',
            'Este sorteio já tem vendas ou reservas e não pode ser excluído. Feche-o em vez de excluir.',
          );
        await trx('draws').where({ id }).del();
        await audit(trx, {
          actorUserId: adminId,
          actor: 'admin',
          action: 'draw.deleted',
          entity: 'draw',
          entityId: id,
          data: { before: snapshot(before), after: null },
        });
        deps.readCache.invalidateAllAfterCommit(trx);
      });
      return { ok: true as const, id };
    },
  };
  return service;
}

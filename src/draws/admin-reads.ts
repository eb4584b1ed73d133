import type { Db } from '../platform/db';
import { errors } from '../platform/errors';
import { readAppConfig } from '../platform/app-config';
import type { AdminDraw, AdminDrawChange, DashboardSummary } from '../shared/api/admin-draws';
import * as q from './queries';
import { resultAlertsFor } from './result-alerts';
import type { DrawsService } from './service';
import { DRAW_STATUS_FILTERS, drawStatusWord } from './serializers';
import { AdminDrawListQuery } from './admin-schemas';

/** The admin console's draws, read (admin.ts writes): the dashboard summary, the table, a draw's view and board. */

export async function adminDrawViews(db: Db, draws: DrawsService, rows: q.DrawRow[]): Promise<AdminDraw[]> {
  const base = await draws.views(rows, db, { fullWinnerNames: true });
  const productIds = [...new Set(rows.map((r) => r.infoproduct_id).filter((x): x is number => x != null))];
  const products: Array<{ id: number; title: string; price_cents: number | null }> = productIds.length
    ? await db('infoproducts').whereIn('id', productIds).select('id', 'title', 'price_cents')
    : [];
  const used = await q.usedDraws(
    db,
    rows.map((r) => r.id),
  );
  const alerts = await resultAlertsFor(db, rows);
  return base.map((v) => {
    const p = v.infoproduct_id ? products.find((x) => x.id === v.infoproduct_id) : undefined;
    return {
      ...v,
      ip_title: p?.title ?? null,
      ipTitle: p?.title ?? null,
      ip_price_cents: p?.price_cents ?? null,
      ipPriceCents: p?.price_cents ?? null,
      deletable: v.status !== 'sorteado' && !used.has(v.id),
      result_alert: alerts.get(v.id) ?? null,
    };
  });
}

/** The dashboard's summary of the current draw and the config's prices. */
export async function adminSummary(db: Db, draws: DrawsService): Promise<DashboardSummary> {
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
}

/** The draws table: newest first, filtered by status, product or a title / number search. */
export async function adminDrawList(db: Db, draws: DrawsService, query: unknown) {
  const f = AdminDrawListQuery.parse(query);
  const qb = db('draws')
    .orderBy('id', 'desc')
    .limit(f.limit + 1)
    .offset(f.offset);
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
  return { items: await adminDrawViews(db, draws, rows.slice(0, f.limit)), hasMore, limit: f.limit, offset: f.offset };
}

/** A draw's board with each owner's name (the console's view). */
export async function adminBoard(db: Db, id: number) {
  const [d, nums] = await Promise.all([q.findDraw(db, id), q.boardNumbers(db, id)]);
  if (!d) throw errors.notFound('draw_not_found', 'Sorteio não encontrado.');
  return {
    draw_id: d.id,
    status: drawStatusWord(d.status),
    total_numbers: d.total_numbers,
    numbers: nums.map((b) => ({ n: b.n, state: b.status, status: b.status, owner_user_id: b.owner_user_id, owner_name: b.owner_name })),
  };
}

/** A change that closed the main series' current draw says what the store shows meanwhile. */
export async function closeNotice(db: Db, draws: DrawsService, before: q.DrawRow, after: AdminDraw): Promise<AdminDrawChange> {
  if (before.status !== 'open' || after.status !== 'closed' || !before.infoproduct_id) return after;
  const cfg = await readAppConfig(db);
  if (cfg.main_infoproduct_id !== before.infoproduct_id) return after;
  const current = await draws.currentDrawId(cfg);
  const notice = current
    ? `Este era o sorteio atual da série principal: ela fica sem sorteio aberto até que um seja aberto (reabra este ou use NOVO SORTEIO). Enquanto isso, o sorteio exibido como atual é o #${current}.`
    : 'Este era o sorteio atual: a loja fica sem sorteio atual até que um seja aberto (reabra este ou use NOVO SORTEIO).';
  return { ...after, notice };
}

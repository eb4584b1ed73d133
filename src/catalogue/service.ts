import { z } from 'zod';
import type { Db } from '../platform/db';
import { errors } from '../platform/errors';
import { readAppConfig, type AppConfig } from '../platform/app-config';
import { ReadCache, type CachedJson } from '../platform/read-cache';
import type { DrawsService } from '../draws/service';
import { boardNumbersOfDraws, countsByDraw, type BoardNumber, type DrawRow } from '../draws/queries';
import { effectiveTicketPrice, serializeNumber } from '../draws/serializers';
import type {
  CatalogueItem,
  CatalogueSection,
  InfoproductFields,
  OpenDrawAnswer,
  Product,
  ProductDetail,
  PublicConfig,
} from '../shared/api/catalogue';
import type { Draw, PausedDraw, PendingDraw } from '../shared/api/draws';

export const ProductListQuery = z.object({
  category: z
    .string()
    .trim()
    .max(60)
    .regex(/^[a-z0-9-]+$/i, 'Categoria inválida.')
    .optional(),
  status: z.enum(['open', 'all']).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(12),
  include: z.enum(['numbers']).optional(),
});

export const SectionsQuery = z.object({
  onlyOpen: z.enum(['0', '1', 'true', 'false']).optional(),
});

export const IdOrSku = z
  .string()
  .trim()
  .min(1)
  .max(120)
  .regex(/^[A-Za-z0-9._-]+$/, 'Identificador de e-book inválido.');

/** A product as read by PRODUCT_COLUMNS (shared fields declared in src/shared/api/catalogue.ts). */
export interface ProductRow extends InfoproductFields {
  created_at: Date;
  /** The product's open draw, if any (not serialized). */
  open_draw_id?: number | null;
}

const PRODUCT_COLUMNS = [
  'p.id',
  'p.sku',
  'p.title',
  'p.subtitle',
  'p.description',
  'p.cover_url',
  'p.price_cents',
  'p.default_prize_cents',
  'p.default_total_numbers',
  'p.active',
  'p.category_id',
  'c.slug as category_slug',
  'c.name as category_name',
  'p.created_at',
];

/** Public product shape (never file_url: the e-book file is for buyers only). */
export function serializeProduct(p: ProductRow, draw: Draw | null): Product {
  return {
    id: p.id,
    sku: p.sku,
    title: p.title,
    subtitle: p.subtitle,
    description: p.description,
    cover_url: p.cover_url,
    price_cents: p.price_cents,
    prize_cents: draw?.prize_cents ?? p.default_prize_cents,
    default_prize_cents: p.default_prize_cents,
    default_total_numbers: p.default_total_numbers,
    active: p.active,
    category_id: p.category_id,
    category_slug: p.category_slug,
    category_name: p.category_name,
    draw,
  };
}
/**
 * The catalogue reads. The plain methods build an answer from the database;
 * the `…Json` ones serve the public routes from the read cache (the same
 * answer, serialized once, ≤ 1 s old, invalidated by in-process writes).
 */
export interface CatalogueService {
  list(query: unknown): Promise<CatalogueItem[]>;
  sections(query: unknown): Promise<CatalogueSection[]>;
  findProduct(idOrSku: string): Promise<ProductRow>;
  detail(idOrSku: string): Promise<ProductDetail>;
  openDraw(idOrSku: string, includeNumbers: boolean): Promise<OpenDrawAnswer>;
  ensureOpenDraw(idOrSku: string): Promise<Draw | PausedDraw>;
  publicConfig(): Promise<PublicConfig>;
  /** `{items}` of `list`. */
  listJson(query: unknown): Promise<CachedJson>;
  sectionsJson(query: unknown): Promise<CachedJson>;
  detailJson(idOrSku: string): Promise<CachedJson>;
  openDrawJson(idOrSku: string, includeNumbers: boolean): Promise<CachedJson>;
  publicConfigJson(): Promise<CachedJson>;
}

export function createCatalogueService(deps: { db: Db; draws: DrawsService; readCache?: ReadCache }): CatalogueService {
  const { db, draws } = deps;
  const cache = deps.readCache ?? new ReadCache();

  // Each product row carries the id of its open draw (at most one: a partial unique index).
  const baseQuery = () =>
    db('infoproducts as p')
      .leftJoin('categories as c', 'c.id', 'p.category_id')
      .select(PRODUCT_COLUMNS)
      .select(db.raw(`(SELECT d.id FROM draws d WHERE d.infoproduct_id = p.id AND d.status = 'open') AS open_draw_id`));

  /**
   * The open draws of `products` (views, by product id) and optionally their boards,
   * in one round trip: the draw rows, their counts and their numbers in parallel.
   */
  async function openDrawsOf(products: ProductRow[], cfg: AppConfig, withNumbers: boolean) {
    const ids = products.map((p) => p.open_draw_id).filter((id): id is number => id != null);
    if (!ids.length) return { views: new Map<number, Draw>(), boards: new Map<number, BoardNumber[]>() };
    const [rows, counts, boards] = await Promise.all([
      db('draws').whereIn('id', ids).where({ status: 'open' }) as Promise<DrawRow[]>,
      countsByDraw(db, ids),
      withNumbers ? boardNumbersOfDraws(db, ids) : Promise.resolve(new Map<number, BoardNumber[]>()),
    ]);
    const products_ = new Map(products.map((p) => [p.id, p]));
    const views = await draws.views(rows, db, { cfg, counts, products: products_ });
    return { views: new Map(views.map((v) => [v.infoproduct_id as number, v])), boards };
  }

  function findProductQuery(idOrSku: string) {
    const key = IdOrSku.parse(idOrSku);
    const qb = baseQuery();
    // Only a digit string that fits an id is tried as one: a longer one is out of
    // bigint range for PostgreSQL (an error, not "not found"), so it can only be a SKU.
    const asId = /^\d{1,15}$/.test(key) ? Number(key) : null;
    if (asId != null) qb.where('p.id', asId).orWhere('p.sku', key);
    else qb.where('p.sku', key);
    return qb.first() as Promise<ProductRow | undefined>;
  }

  const notFound = () => errors.notFound('infoproduct_not_found', 'E-book não encontrado.');

  const service: CatalogueService = {
    // Two round trips: [products, config], then [open draws, counts, boards].
    async list(query) {
      const f = ProductListQuery.parse(query);
      const qb = baseQuery().where('p.active', true).orderBy('p.id', 'asc').limit(f.limit);
      if (f.category) qb.where('c.slug', f.category.toLowerCase());
      if (f.status === 'open')
        qb.whereExists(db('draws as d').whereRaw('d.infoproduct_id = p.id').where('d.status', 'open').select(db.raw('1')));
      const [rows, cfg] = await Promise.all([qb as Promise<ProductRow[]>, readAppConfig(db)]);
      const withNumbers = f.include === 'numbers';
      const { views, boards } = await openDrawsOf(rows, cfg, withNumbers);
      const out: CatalogueItem[] = rows.map((p) => serializeProduct(p, views.get(p.id) ?? null));
      if (!withNumbers) return out;
      return out.map((p) => ({ ...p, numbers: p.draw ? (boards.get(p.draw.id) ?? []).map(serializeNumber) : [] }));
    },

    // Two round trips: [categories, products, config], then [open draws, counts].
    async sections(query) {
      const f = SectionsQuery.parse(query);
      const onlyOpen = f.onlyOpen === '1' || f.onlyOpen === 'true';
      const [cats, rows, cfg] = await Promise.all([
        db('categories').orderBy(['position', 'id']) as Promise<Array<{ id: number; slug: string; name: string; logo_url: string | null }>>,
        baseQuery().where('p.active', true).orderBy('p.id', 'asc') as Promise<ProductRow[]>,
        readAppConfig(db),
      ]);
      const open = (await openDrawsOf(rows, cfg, false)).views;
      return cats
        .map((c) => ({
          slug: c.slug,
          name: c.name,
          logo_url: c.logo_url,
          items: rows
            .filter((p) => p.category_id === c.id && (!onlyOpen || open.has(p.id)))
            .map((p) => {
              const draw = open.get(p.id) ?? null;
              return { product: serializeProduct(p, draw), draw };
            }),
        }))
        .filter((s) => s.items.length > 0);
    },

    async findProduct(idOrSku) {
      const row = await findProductQuery(idOrSku);
      if (!row) throw notFound();
      return row;
    },

    async detail(idOrSku) {
      const [p, cfg] = await Promise.all([service.findProduct(idOrSku), readAppConfig(db)]);
      const all: DrawRow[] = await db('draws').where({ infoproduct_id: p.id }).orderBy('id', 'desc').limit(50);
      const views = await draws.views(all, db, { cfg, products: new Map([[p.id, p]]) });
      return { ...serializeProduct(p, views.find((v) => v.status === 'open') ?? null), draws: views };
    },

    // Two round trips: [product with its open draw id, config], then [draw, counts, numbers].
    async openDraw(idOrSku, includeNumbers) {
      const [p, cfg] = await Promise.all([service.findProduct(idOrSku), readAppConfig(db)]);
      const { views, boards } = await openDrawsOf([p], cfg, includeNumbers);
      const open = views.get(p.id) ?? null;
      const product = serializeProduct(p, open);
      if (!open) {
        const pending: PendingDraw = {
          id: null,
          status: 'pending',
          total_numbers: p.default_total_numbers,
          prize_cents: p.default_prize_cents,
          ticket_price_cents: effectiveTicketPrice(null, {
            productPriceCents: p.price_cents,
            configTicketPriceCents: cfg.ticket_price_cents,
          }),
          counts: { reserved: 0, sold: 0, taken: 0 },
        };
        return { draw: pending, product, ...(includeNumbers ? { numbers: [] } : {}) };
      }
      return { draw: open, product, ...(includeNumbers ? { numbers: (boards.get(open.id) ?? []).map(serializeNumber) } : {}) };
    },

    async ensureOpenDraw(idOrSku) {
      const p = await service.findProduct(idOrSku);
      const d = await draws.ensureOpenDraw(p.id);
      if (!d) {
        const last = await draws.latestDrawOf(p.id);
        return {
          id: null,
          draw_id: null,
          status: 'paused',
          open: false,
          infoproduct_id: p.id,
          last_draw_id: last?.id ?? null,
          total_numbers: null,
          message: 'O sorteio deste e-book está pausado. Aguarde a abertura de uma nova rodada.',
        };
      }
      const [view] = await draws.views([d]);
      return { ...view, draw_id: d.id };
    },

    async publicConfig() {
      const cfg = await readAppConfig(db);
      // RULES N9: the ticket price is the current draw's (what its buyers pay, as the dashboard shows);
      // the config's own price is only the fallback of draws without one, and is named so.
      const current = await draws.currentDraw(cfg);
      return {
        current_draw_id: current?.id ?? null,
        draw_id: current?.id ?? null,
        banner_title: cfg.banner_title,
        max_numbers_per_selection: cfg.max_numbers_per_selection,
        ticket_price_cents: current?.price_cents ?? cfg.ticket_price_cents,
        default_ticket_price_cents: cfg.ticket_price_cents,
      };
    },

    listJson(query) {
      const f = ProductListQuery.parse(query);
      const key = `infoproducts:${f.category?.toLowerCase() ?? ''}:${f.status ?? ''}:${f.limit}:${f.include ?? ''}`;
      return cache.get(key, async () => {
        const items = await service.list(f);
        return { body: { items }, drawIds: items.map((p) => p.draw?.id) };
      });
    },

    sectionsJson(query) {
      const f = SectionsQuery.parse(query);
      const onlyOpen = f.onlyOpen === '1' || f.onlyOpen === 'true';
      return cache.get(`sections:${onlyOpen ? 1 : 0}`, async () => {
        const body = await service.sections(f);
        return { body, drawIds: body.flatMap((s) => s.items.map((i) => i.draw?.id)) };
      });
    },

    detailJson(idOrSku) {
      const key = IdOrSku.parse(idOrSku);
      return cache.get(`infoproduct:${key}`, async () => {
        const body = await service.detail(key);
        return { body, drawIds: body.draws.map((d) => d.id) };
      });
    },

    openDrawJson(idOrSku, includeNumbers) {
      const key = IdOrSku.parse(idOrSku);
      return cache.get(`open-draw:${key}:${includeNumbers ? 'numbers' : ''}`, async () => {
        const body = await service.openDraw(key, includeNumbers);
        return { body, drawIds: [body.draw.id] };
      });
    },

    publicConfigJson() {
      return cache.get('config', async () => {
        const body = await service.publicConfig();
        return { body, drawIds: [body.current_draw_id] };
      });
    },
  };
  return service;
}

import { z } from 'zod';
import type { Db } from '../platform/db';
import { errors } from '../platform/errors';
import { readAppConfig } from '../platform/app-config';
import type { DrawsService } from '../draws/service';
import { effectiveTicketPrice, type DrawView } from '../draws/serializers';

export const ProductListQuery = z.object({
  category: z.string().trim().max(60).regex(/^[a-z0-9-]+$/i, 'Categoria inválida.').optional(),
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

export interface ProductRow {
  id: number;
  sku: string | null;
  title: string;
  subtitle: string | null;
  description: string | null;
  cover_url: string | null;
  price_cents: number | null;
  default_prize_cents: number;
  default_total_numbers: number;
  active: boolean;
  category_id: number | null;
  category_slug: string | null;
  category_name: string | null;
  created_at: Date;
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
export function serializeProduct(p: ProductRow, draw: DrawView | null) {
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
export type ProductView = ReturnType<typeof serializeProduct>;

export interface CatalogueService {
  list(query: unknown): Promise<Array<ProductView & { numbers?: unknown[] }>>;
  sections(query: unknown): Promise<Array<{ slug: string; name: string; logo_url: string | null; items: Array<{ product: ProductView; draw: DrawView | null }> }>>;
  findProduct(idOrSku: string): Promise<ProductRow>;
  detail(idOrSku: string): Promise<ProductView & { draws: DrawView[] }>;
  openDraw(idOrSku: string, includeNumbers: boolean): Promise<{ draw: DrawView | PendingDraw; product: ProductView; numbers?: unknown[] }>;
  ensureOpenDraw(idOrSku: string): Promise<DrawView & { draw_id: number }>;
  publicConfig(): Promise<{ current_draw_id: number | null; draw_id: number | null; banner_title: string; max_numbers_per_selection: number; ticket_price_cents: number }>;
}

export interface PendingDraw {
  id: null;
  status: 'pending';
  total_numbers: number;
  prize_cents: number;
  ticket_price_cents: number;
  counts: { reserved: 0; sold: 0; taken: 0 };
}

export function createCatalogueService(deps: { db: Db; draws: DrawsService }): CatalogueService {
  const { db, draws } = deps;

  const baseQuery = () => db('infoproducts as p').leftJoin('categories as c', 'c.id', 'p.category_id').select(PRODUCT_COLUMNS);

  async function withOpenDraws(products: ProductRow[]): Promise<Map<number, DrawView>> {
    if (!products.length) return new Map();
    const open = await db('draws').whereIn('infoproduct_id', products.map((p) => p.id)).where({ status: 'open' });
    const views = await draws.views(open);
    return new Map(views.map((v) => [v.infoproduct_id as number, v]));
  }

  const service: CatalogueService = {
    async list(query) {
      const f = ProductListQuery.parse(query);
      const qb = baseQuery().where('p.active', true).orderBy('p.id', 'asc').limit(f.limit);
      if (f.category) qb.where('c.slug', f.category.toLowerCase());
      if (f.status === 'open') qb.whereExists(db('draws as d').whereRaw('d.infoproduct_id = p.id').where('d.status', 'open').select(db.raw('1')));
      const rows: ProductRow[] = await qb;
      const open = await withOpenDraws(rows);
      const out = rows.map((p) => serializeProduct(p, open.get(p.id) ?? null));
      if (f.include !== 'numbers') return out;
      return Promise.all(out.map(async (p) => ({ ...p, numbers: p.draw ? await draws.numbers(p.draw.id) : [] })));
    },

    async sections(query) {
      const f = SectionsQuery.parse(query);
      const onlyOpen = f.onlyOpen === '1' || f.onlyOpen === 'true';
      const cats: Array<{ id: number; slug: string; name: string; logo_url: string | null }> = await db('categories').orderBy(['position', 'id']);
      const rows: ProductRow[] = await baseQuery().where('p.active', true).orderBy('p.id', 'asc');
      const open = await withOpenDraws(rows);
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
      const key = IdOrSku.parse(idOrSku);
      const qb = baseQuery();
      // Only a digit string that fits an id is tried as one: a longer one is out of
      // bigint range for PostgreSQL (an error, not "not found"), so it can only be a SKU.
      const asId = /^\d{1,15}$/.test(key) ? Number(key) : null;
      if (asId != null) qb.where('p.id', asId).orWhere('p.sku', key);
      else qb.where('p.sku', key);
      const row: ProductRow | undefined = await qb.first();
      if (!row) throw errors.notFound('infoproduct_not_found', 'E-book não encontrado.');
      return row;
    },

    async detail(idOrSku) {
      const p = await service.findProduct(idOrSku);
      const all = await db('draws').where({ infoproduct_id: p.id }).orderBy('id', 'desc').limit(50);
      const views = await draws.views(all);
      return { ...serializeProduct(p, views.find((v) => v.status === 'open') ?? null), draws: views };
    },

    async openDraw(idOrSku, includeNumbers) {
      const p = await service.findProduct(idOrSku);
      const open = (await withOpenDraws([p])).get(p.id) ?? null;
      const product = serializeProduct(p, open);
      if (!open) {
        const cfg = await readAppConfig(db);
        const pending: PendingDraw = {
          id: null,
          status: 'pending',
          total_numbers: p.default_total_numbers,
          prize_cents: p.default_prize_cents,
          ticket_price_cents: effectiveTicketPrice(null, { productPriceCents: p.price_cents, configTicketPriceCents: cfg.ticket_price_cents }),
          counts: { reserved: 0, sold: 0, taken: 0 },
        };
        return { draw: pending, product, ...(includeNumbers ? { numbers: [] } : {}) };
      }
      return { draw: open, product, ...(includeNumbers ? { numbers: await draws.numbers(open.id) } : {}) };
    },

    async ensureOpenDraw(idOrSku) {
      const p = await service.findProduct(idOrSku);
      const d = await draws.ensureOpenDraw(p.id);
      const [view] = await draws.views([d]);
      return { ...view, draw_id: d.id };
    },

    async publicConfig() {
      const cfg = await readAppConfig(db);
      const current = await draws.currentDrawId(cfg);
      return {
        current_draw_id: current,
        draw_id: current,
        banner_title: cfg.banner_title,
        max_numbers_per_selection: cfg.max_numbers_per_selection,
        ticket_price_cents: cfg.ticket_price_cents,
      };
    },
  };
  return service;
}

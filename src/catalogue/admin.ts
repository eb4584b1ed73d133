import type { Trx } from '../platform/db';
import { isUniqueViolation } from '../platform/db';
import { errors } from '../platform/errors';
import { audit } from '../platform/audit';
import { readAppConfig } from '../platform/app-config';
import type { DrawsService } from '../draws/service';
import type { AdminCategory, AdminInfoproduct, AdminInfoproductList } from '../shared/api/admin-infoproducts';
import type { InfoproductFields } from '../shared/api/catalogue';
import { AdminInfoproductListQuery, CreateInfoproductCommand, UpdateInfoproductCommand, type ProductFields } from './admin-schemas';
import { createUploads, type UploadedFile, type UploadsDeps } from './admin-uploads';

// The commands and the uploads have files of their own; the routes and tests import them from here.
export {
  AdminInfoproductId,
  AdminInfoproductListQuery,
  CreateInfoproductCommand,
  UpdateInfoproductCommand,
  reaisToCents,
} from './admin-schemas';
export { COVER_NAME_RE, COVERS_URL_PREFIX, type UploadedFile } from './admin-uploads';

/**
 * The admin console's e-books, 'Cadastro de Infoprodutos' (account spec §2/§5/§7).
 * - Prices are typed in reais (`price`, `prize`: "19,90", "19.90", 19.9, "R$ 1.234,56") or sent in
 *   cents (`price_cents`, `prize_cents` / `default_prize_cents`) and stored in cents.
 * - DELETE archives (active = false): the product leaves the store's lists, its draws, sales and
 *   payments stay; it can be reactivated with PUT {active: true}.
 * - Creating an active e-book opens its draw in the same transaction (a product's draw is what the
 *   store sells); reactivating one without an open draw opens one too. `open_draw: false` skips it.
 * - The PDF and the cover are uploaded (admin-uploads.ts); the commands are admin-schemas.ts.
 * Every write: one transaction, an audit entry with before/after, the public read cache dropped
 * after commit.
 */
export interface AdminInfoproductsService {
  list(query: unknown): Promise<AdminInfoproductList & { categories: AdminCategory[] }>;
  get(id: number): Promise<AdminInfoproduct>;
  create(adminId: number, input: unknown): Promise<AdminInfoproduct>;
  update(adminId: number, id: number, input: unknown): Promise<AdminInfoproduct>;
  archive(adminId: number, id: number): Promise<AdminInfoproduct>;
  uploadFile(adminId: number, id: number, file: UploadedFile | undefined): Promise<AdminInfoproduct>;
  uploadCover(adminId: number, id: number, file: UploadedFile | undefined): Promise<AdminInfoproduct>;
  /** A public cover file by its stored name (GET /api/covers/{name}). */
  coverFile(name: string): Promise<{ file: string; size: number; type: string }>;
  limits: { ebookMaxBytes: number; coverMaxBytes: number };
}

/** A product row with its file, category and draws (shared fields: src/shared/api/catalogue.ts). */
interface Row extends InfoproductFields {
  file_url: string | null;
  file_sha256: string | null;
  open_draw_id: number | string | null;
  draws_count: number | string;
  created_at: Date;
  updated_at: Date;
}

const AUDIT_FIELDS = [
  'sku',
  'title',
  'subtitle',
  'description',
  'cover_url',
  'file_url',
  'file_sha256',
  'price_cents',
  'default_prize_cents',
  'default_total_numbers',
  'active',
  'category_id',
] as const;
function snapshot(p: Record<string, unknown> | undefined | null) {
  if (!p) return null;
  const out: Record<string, unknown> = { id: p.id };
  for (const k of AUDIT_FIELDS) out[k] = p[k];
  return out;
}

const notFound = () => errors.notFound('infoproduct_not_found', 'E-book não encontrado.');

export function createAdminInfoproductsService(deps: UploadsDeps & { draws: DrawsService }): AdminInfoproductsService {
  const { db, logger } = deps;

  const base = () =>
    db('infoproducts as p')
      .leftJoin('categories as c', 'c.id', 'p.category_id')
      .select('p.*', 'c.slug as category_slug', 'c.name as category_name')
      .select(db.raw(`(SELECT d.id FROM draws d WHERE d.infoproduct_id = p.id AND d.status = 'open') AS open_draw_id`))
      .select(db.raw(`(SELECT count(*) FROM draws d WHERE d.infoproduct_id = p.id)::int AS draws_count`));

  function view(r: Row): AdminInfoproduct {
    return {
      id: Number(r.id),
      sku: r.sku,
      title: r.title,
      subtitle: r.subtitle,
      description: r.description,
      cover_url: r.cover_url,
      price_cents: r.price_cents,
      default_prize_cents: r.default_prize_cents,
      prize_cents: r.default_prize_cents,
      default_total_numbers: r.default_total_numbers,
      total_numbers: r.default_total_numbers,
      active: r.active,
      category_id: r.category_id == null ? null : Number(r.category_id),
      category_slug: r.category_slug,
      category_name: r.category_name,
      has_file: !!r.file_url && !!r.file_sha256,
      file_url: r.file_url,
      file_sha256: r.file_sha256,
      open_draw_id: r.open_draw_id == null ? null : Number(r.open_draw_id),
      draws_count: Number(r.draws_count),
      created_at: new Date(r.created_at).toISOString(),
      updated_at: new Date(r.updated_at).toISOString(),
    };
  }

  async function get(id: number): Promise<AdminInfoproduct> {
    const r: Row | undefined = await base().where('p.id', id).first();
    if (!r) throw notFound();
    return view(r);
  }

  async function locked(trx: Trx, id: number) {
    const p = await trx('infoproducts').where({ id }).forUpdate().first();
    if (!p) throw notFound();
    return p as Record<string, unknown> & {
      id: number;
      title: string;
      active: boolean;
      default_total_numbers: number;
      default_prize_cents: number;
      file_url: string | null;
      cover_url: string | null;
    };
  }

  /** category_id, else category_slug resolved; undefined when neither was sent. */
  async function categoryOf(trx: Trx, cmd: ProductFields): Promise<number | null | undefined> {
    if (cmd.category_id !== undefined) {
      if (cmd.category_id === null) return null;
      const c = await trx('categories').where({ id: cmd.category_id }).first('id');
      if (!c) throw errors.validation('category_not_found', 'Categoria não encontrada.');
      return cmd.category_id;
    }
    if (cmd.category_slug !== undefined) {
      if (cmd.category_slug === null) return null;
      const c = await trx('categories').where({ slug: cmd.category_slug }).first('id');
      if (!c) throw errors.validation('category_not_found', 'Categoria não encontrada.');
      return Number(c.id);
    }
    return undefined;
  }

  /** Opens the product's draw unless one is open (the product row is locked by the caller): draws decides how. */
  const openDrawOf = (trx: Trx, p: { id: number; title: string; default_total_numbers: number; default_prize_cents: number }) =>
    deps.draws.openDrawOfProduct(trx, p);

  async function guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      if (isUniqueViolation(e, 'infoproducts_sku_key')) throw errors.conflict('sku_taken', 'Já existe um e-book com este SKU.');
      throw e;
    }
  }

  const uploads = createUploads(deps, { get, locked });

  const service: AdminInfoproductsService = {
    limits: { ebookMaxBytes: deps.ebookMaxBytes, coverMaxBytes: deps.coverMaxBytes },
    ...uploads,

    async list(query) {
      const f = AdminInfoproductListQuery.parse(query ?? {});
      const qb = base()
        .orderBy('p.id', 'desc')
        .limit(f.limit + 1)
        .offset(f.offset);
      if (f.active === '1' || f.active === 'true') qb.where('p.active', true);
      if (f.active === '0' || f.active === 'false') qb.where('p.active', false);
      if (f.search) {
        const like = `%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        qb.where((w) => {
          w.whereRaw('p.title ILIKE ?', [like]).orWhereRaw('p.sku ILIKE ?', [like]);
          if (/^\d{1,15}$/.test(f.search!)) w.orWhere('p.id', Number(f.search));
        });
      }
      const [rows, categories] = await Promise.all([
        qb as Promise<Row[]>,
        db('categories').orderBy(['position', 'id']).select('id', 'slug', 'name'),
      ]);
      return {
        items: rows.slice(0, f.limit).map(view),
        hasMore: rows.length > f.limit,
        limit: f.limit,
        offset: f.offset,
        categories: categories.map((c: AdminCategory) => ({ id: Number(c.id), slug: c.slug, name: c.name })),
      };
    },

    get,

    async create(adminId, input) {
      const cmd = CreateInfoproductCommand.parse(input);
      const id = await guarded(() =>
        db.transaction(async (trx) => {
          const category_id = await categoryOf(trx, cmd);
          const [p] = await trx('infoproducts')
            .insert({
              sku: cmd.sku,
              title: cmd.title,
              subtitle: cmd.subtitle ?? null,
              description: cmd.description ?? null,
              cover_url: cmd.cover_url ?? null,
              price_cents: cmd.price_cents ?? null,
              default_prize_cents: cmd.prize_cents ?? 0,
              default_total_numbers: cmd.total_numbers ?? 100,
              active: cmd.active ?? true,
              category_id: category_id ?? null,
            })
            .returning('*');
          const drawId = p.active && cmd.open_draw !== false ? await openDrawOf(trx, p) : null;
          await audit(trx, {
            actorUserId: adminId,
            actor: 'admin',
            action: 'infoproduct.created',
            entity: 'infoproduct',
            entityId: p.id,
            data: { before: null, after: snapshot(p), opened_draw_id: drawId },
          });
          deps.readCache.invalidateAllAfterCommit(trx);
          return Number(p.id);
        }),
      );
      logger.info({ adminId, infoproductId: id }, 'admin: e-book created');
      return get(id);
    },

    async update(adminId, id, input) {
      const cmd = UpdateInfoproductCommand.parse(input);
      await guarded(() =>
        db.transaction(async (trx) => {
          // RULES D8: archiving by PUT {active: false} closes its open draw too (draw row first).
          const closedDrawId = cmd.active === false ? await deps.draws.closeOpenDrawOfArchived(trx, id, adminId) : null;
          const before = await locked(trx, id);
          const patch: Record<string, unknown> = {};
          for (const k of ['sku', 'title', 'subtitle', 'description', 'cover_url', 'price_cents', 'active'] as const)
            if (cmd[k] !== undefined) patch[k] = cmd[k];
          if (cmd.prize_cents !== undefined) patch.default_prize_cents = cmd.prize_cents ?? 0;
          if (cmd.total_numbers !== undefined) patch.default_total_numbers = cmd.total_numbers;
          const category_id = await categoryOf(trx, cmd);
          if (category_id !== undefined) patch.category_id = category_id;
          if (patch.active === false) await refuseArchivingMain(trx, id);
          const [after] = await trx('infoproducts')
            .where({ id })
            .update({ ...patch, updated_at: trx.fn.now() })
            .returning('*');
          // Reactivated (or still active and asked to): its draw opens again, as at creation.
          const drawId =
            after.active && ((!before.active && cmd.open_draw !== false) || cmd.open_draw === true) ? await openDrawOf(trx, after) : null;
          await audit(trx, {
            actorUserId: adminId,
            actor: 'admin',
            action: 'infoproduct.updated',
            entity: 'infoproduct',
            entityId: id,
            data: { before: snapshot(before), after: snapshot(after), opened_draw_id: drawId, closed_draw_id: closedDrawId },
          });
          deps.readCache.invalidateAllAfterCommit(trx);
        }),
      );
      return get(id);
    },

    async archive(adminId, id) {
      await db.transaction(async (trx) => {
        // RULES D8: its open draw closes with it (the draws module's write, draw row before product row).
        const closedDrawId = await deps.draws.closeOpenDrawOfArchived(trx, id, adminId);
        const before = await locked(trx, id);
        if (!before.active && closedDrawId === null) return; // already archived: nothing changes, nothing to audit
        await refuseArchivingMain(trx, id);
        const [after] = await trx('infoproducts').where({ id }).update({ active: false, updated_at: trx.fn.now() }).returning('*');
        await audit(trx, {
          actorUserId: adminId,
          actor: 'admin',
          action: 'infoproduct.archived',
          entity: 'infoproduct',
          entityId: id,
          data: { before: snapshot(before), after: snapshot(after), closed_draw_id: closedDrawId },
        });
        deps.readCache.invalidateAllAfterCommit(trx);
      });
      return get(id);
    },
  };

  /** The dashboard's main series cannot leave the store (its 'NOVO SORTEIO' would open draws of a hidden product). */
  async function refuseArchivingMain(trx: Trx, id: number) {
    const cfg = await readAppConfig(trx);
    if (cfg.main_infoproduct_id === id)
      throw errors.conflict(
        'main_series',
        'Este e-book é a série principal do painel e não pode ser arquivado. Escolha outra série principal antes.',
      );
  }

  return service;
}

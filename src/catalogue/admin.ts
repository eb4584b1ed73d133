import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Db, Trx } from '../platform/db';
import { isUniqueViolation } from '../platform/db';
import { errors } from '../platform/errors';
import { audit } from '../platform/audit';
import { Id, PageLimit, PageOffset } from '../platform/validation';
import { parseId } from '../shared/validation';
import { readAppConfig } from '../platform/app-config';
import type { ReadCache } from '../platform/read-cache';
import type { Logger } from '../platform/logger';
import type { DrawsService } from '../draws/service';
import type { AdminCategory, AdminInfoproduct, AdminInfoproductList } from '../shared/api/admin-infoproducts';
import type { InfoproductFields } from '../shared/api/catalogue';

/**
 * The admin console's e-books, 'Cadastro de Infoprodutos' (account spec §2/§5/§7).
 * - Prices are typed in reais (`price`, `prize`: "19,90", "19.90", 19.9, "R$ 1.234,56") or sent in
 *   cents (`price_cents`, `prize_cents` / `default_prize_cents`) and stored in cents.
 * - DELETE archives (active = false): the product leaves the store's lists, its draws, sales and
 *   payments stay; it can be reactivated with PUT {active: true}.
 * - Creating an active e-book opens its draw in the same transaction (a product's draw is what the
 *   store sells); reactivating one without an open draw opens one too. `open_draw: false` skips it.
 * - The PDF is set only by the upload (`file_url`/`file_sha256` of a body are ignored): it is
 *   checked by its magic bytes, hashed (sha256 stored) and kept in the private e-book storage, from
 *   where only the customer-area download (catalogue/ebooks.ts) serves it to buyers.
 * - Covers: PNG, JPEG or WebP by their magic bytes, kept in the cover storage and served publicly
 *   under /api/covers/. SVG is refused: it can carry scripts and we do not sanitize it.
 * Every write: one transaction, an audit entry with before/after, the public read cache dropped
 * after commit.
 */

export const AdminInfoproductId = Id('E-book inválido.');

/** A money amount typed in reais → cents, exactly (no float rounding of the text). */
export function reaisToCents(v: unknown): number | null | typeof NaN {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v < 0) return NaN;
    const c = Math.round(v * 100);
    return Math.abs(c - v * 100) < 1e-6 ? c : NaN;
  }
  if (typeof v !== 'string') return NaN;
  let s = v.trim().replace(/^R\$\s*/i, '').replace(/\s+/g, '');
  if (s === '') return v.trim() === '' ? null : NaN; // 'R$' alone is not an amount
  if (s.includes(',')) {
    // pt-BR: '.' groups thousands, ',' is the decimal mark.
    if (!/^\d{1,3}(\.\d{3})*(,\d{1,2})?$|^\d+(,\d{1,2})?$/.test(s)) return NaN;
    s = s.replace(/\./g, '').replace(',', '.');
  } else if (!/^\d+(\.\d{1,2})?$/.test(s)) return NaN;
  const [int, frac = ''] = s.split('.');
  const cents = Number(int) * 100 + Number(frac.padEnd(2, '0'));
  return Number.isSafeInteger(cents) ? cents : NaN;
}

const MAX_CENTS = 100_000_000;

/** Reais as typed → cents (null for empty). */
const Reais = (label: string) =>
  z.unknown().transform((v, ctx): number | null => {
    const c = reaisToCents(v);
    if (c === null) return null;
    if (Number.isNaN(c)) {
      ctx.addIssue({ code: 'custom', message: `${label} inválido. Use reais, por exemplo 19,90.` });
      return z.NEVER;
    }
    if (c > MAX_CENTS) {
      ctx.addIssue({ code: 'custom', message: `${label} é alto demais.` });
      return z.NEVER;
    }
    return c;
  });

/** Cents: a whole number ≥ 0 (a numeric text too), or null for empty. */
const Cents = (label: string) =>
  z.unknown().transform((v, ctx): number | null => {
    if (v === null || v === undefined || v === '') return null;
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n) || n < 0) {
      ctx.addIssue({ code: 'custom', message: `${label} deve ser um número inteiro de centavos, 0 ou mais.` });
      return z.NEVER;
    }
    if (n > MAX_CENTS) {
      ctx.addIssue({ code: 'custom', message: `${label} é alto demais.` });
      return z.NEVER;
    }
    return n;
  });

const TotalNumbers = z.unknown().transform((v, ctx): number | undefined => {
  if (v === null || v === undefined || v === '') return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(v) ? Number(v) : NaN;
  const f = Math.floor(n);
  if (!Number.isFinite(n) || f < 1 || f > 1000) {
    ctx.addIssue({ code: 'custom', message: 'A quantidade de números deve ficar entre 1 e 1000.' });
    return z.NEVER;
  }
  return f;
});

const optText = (max: number, label: string) =>
  z
    .string({ error: `${label} deve ser um texto.` })
    .trim()
    .max(max, `${label} pode ter no máximo ${max} caracteres.`)
    .nullable()
    .optional()
    .transform((v) => (v === '' ? null : v));

const SkuInput = z
  .string({ error: 'Informe o SKU.' })
  .trim()
  .min(1, 'Informe o SKU.')
  .max(120, 'O SKU pode ter no máximo 120 caracteres.')
  .regex(/^[A-Za-z0-9._-]+$/, 'O SKU só pode ter letras sem acento, números, ponto, hífen e sublinhado.')
  .refine((v) => !/^\d+$/.test(v), 'O SKU não pode ser só números (seria confundido com o id).');

const TitleInput = z.string({ error: 'Informe o título.' }).trim().min(1, 'Informe o título.').max(200, 'O título pode ter no máximo 200 caracteres.');

/** A cover: an http(s) URL, a site path ('/covers/x.svg') or a bare file name under /covers. */
const CoverUrl = z
  .string({ error: 'A capa deve ser um endereço.' })
  .trim()
  .max(500, 'O endereço da capa pode ter no máximo 500 caracteres.')
  .refine((v) => v === '' || /^https?:\/\/[^\s"'<>]+$/i.test(v) || /^\/(?!\/)[^\s"'<>]*$/.test(v) || /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(v), 'Capa inválida: use um endereço http(s) ou envie uma imagem.')
  .nullable()
  .optional()
  .transform((v) => (v === '' ? null : v));

const Bool = z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])], { error: 'Use verdadeiro ou falso.' }).transform((v) => v === true || v === 'true' || v === '1');

const CategoryRef = z.unknown().transform((v, ctx): number | null | undefined => {
  if (v === undefined) return undefined;
  if (v === null || v === '') return null;
  const id = parseId(v);
  if (id === null) {
    ctx.addIssue({ code: 'custom', message: 'Categoria inválida.' });
    return z.NEVER;
  }
  return id;
});

const CategorySlug = z
  .string({ error: 'Categoria inválida.' })
  .trim()
  .toLowerCase()
  .max(60, 'Categoria inválida.')
  .refine((v) => v === '' || /^[a-z0-9-]+$/.test(v), 'Categoria inválida.')
  .nullable()
  .optional();

/** The form's body with the spec's names (§7) and the cents aliases; every field optional here. */
const ProductFields = z
  .object(
    {
      sku: SkuInput.optional(),
      title: TitleInput.optional(),
      name: TitleInput.optional(),
      subtitle: optText(300, 'O subtítulo'),
      description: optText(5000, 'A descrição'),
      cover_url: CoverUrl,
      price: Reais('Preço').optional(),
      price_cents: Cents('O preço').optional(),
      prize: Reais('Prêmio').optional(),
      prize_cents: Cents('O prêmio').optional(),
      default_prize_cents: Cents('O prêmio').optional(),
      total_numbers: TotalNumbers.optional(),
      default_total_numbers: TotalNumbers.optional(),
      active: Bool.optional(),
      category_id: CategoryRef.optional(),
      category_slug: CategorySlug,
      open_draw: Bool.optional(),
    },
    { error: 'Envie um objeto JSON.' },
  )
  .transform((v) => ({
    sku: v.sku,
    title: v.title ?? v.name,
    subtitle: v.subtitle,
    description: v.description,
    cover_url: v.cover_url,
    // Cents win over reais when both are sent (a client that knows cents means them).
    price_cents: v.price_cents !== undefined ? v.price_cents : v.price,
    prize_cents: v.prize_cents ?? v.default_prize_cents ?? (v.prize === undefined ? undefined : (v.prize ?? 0)),
    total_numbers: v.default_total_numbers ?? v.total_numbers,
    active: v.active,
    category_id: v.category_id,
    category_slug: v.category_slug === '' ? null : v.category_slug,
    open_draw: v.open_draw,
  }));
type ProductFields = z.output<typeof ProductFields>;

export const CreateInfoproductCommand = ProductFields.superRefine((v, ctx) => {
  if (v.sku === undefined) ctx.addIssue({ code: 'custom', message: 'Informe o SKU.', path: ['sku'] });
  if (v.title === undefined) ctx.addIssue({ code: 'custom', message: 'Informe o título.', path: ['title'] });
});
export const UpdateInfoproductCommand = ProductFields.refine((v) => Object.entries(v).some(([k, x]) => k !== 'open_draw' && x !== undefined), { message: 'Nada para alterar.' });

export const AdminInfoproductListQuery = z.object({
  search: z.string().trim().max(100, 'A busca pode ter no máximo 100 caracteres.').optional(),
  active: z.enum(['1', '0', 'true', 'false', 'all'], { error: 'Filtro de ativo inválido. Use 1, 0 ou all.' }).optional(),
  limit: PageLimit(200, 50),
  offset: PageOffset(),
});

export interface UploadedFile {
  buffer: Buffer;
  originalname?: string;
  size: number;
}

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

const AUDIT_FIELDS = ['sku', 'title', 'subtitle', 'description', 'cover_url', 'file_url', 'file_sha256', 'price_cents', 'default_prize_cents', 'default_total_numbers', 'active', 'category_id'] as const;
function snapshot(p: Record<string, unknown> | undefined | null) {
  if (!p) return null;
  const out: Record<string, unknown> = { id: p.id };
  for (const k of AUDIT_FIELDS) out[k] = p[k];
  return out;
}

/** The kinds of cover image accepted, told apart by their first bytes (never by name or the client's type). */
const COVER_KINDS = [
  { ext: 'png', type: 'image/png', test: (b: Buffer) => b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { ext: 'jpg', type: 'image/jpeg', test: (b: Buffer) => b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { ext: 'webp', type: 'image/webp', test: (b: Buffer) => b.length >= 12 && b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP' },
] as const;
export const COVER_NAME_RE = /^ip\d{1,15}-[0-9a-f]{16}\.(png|jpg|webp)$/;
export const COVERS_URL_PREFIX = '/api/covers/';

const looksLikeSvg = (b: Buffer) => /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE\s+svg|<svg[\s>])/i.test(b.subarray(0, 4096).toString('utf8').replace(/^\uFEFF/, ''));

const notFound = () => errors.notFound('infoproduct_not_found', 'E-book não encontrado.');

export function createAdminInfoproductsService(deps: {
  db: Db;
  readCache: ReadCache;
  logger: Logger;
  ebookStorageDir: string;
  coverStorageDir: string;
  ebookMaxBytes: number;
  coverMaxBytes: number;
  draws: DrawsService;
}): AdminInfoproductsService {
  const { db, logger } = deps;
  const ebookDir = path.resolve(deps.ebookStorageDir);
  const coverDir = path.resolve(deps.coverStorageDir);

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
    return p as Record<string, unknown> & { id: number; title: string; active: boolean; default_total_numbers: number; default_prize_cents: number; file_url: string | null; cover_url: string | null };
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
  const openDrawOf = (trx: Trx, p: { id: number; title: string; default_total_numbers: number; default_prize_cents: number }) => deps.draws.openDrawOfProduct(trx, p);

  async function guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      if (isUniqueViolation(e, 'infoproducts_sku_key')) throw errors.conflict('sku_taken', 'Já existe um e-book com este SKU.');
      throw e;
    }
  }

  /** Deletes a stored file no product refers to any more (after the commit that replaced it). */
  async function dropIfUnused(dir: string, column: 'file_url' | 'cover_url', value: string | null, name: string | null) {
    if (!value || !name) return;
    const still = await db('infoproducts').where(column, value).first('id');
    if (still) return;
    const file = path.join(dir, name);
    if (!file.startsWith(dir + path.sep)) return;
    await fs.promises.unlink(file).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') logger.warn({ file: name, err: e.message }, 'could not remove a replaced upload');
    });
  }

  /** Writes bytes under `dir/name` atomically (a temp file renamed into place). */
  async function store(dir: string, name: string, bytes: Buffer) {
    await fs.promises.mkdir(dir, { recursive: true });
    const tmp = path.join(dir, `.upload-${randomBytes(8).toString('hex')}`);
    await fs.promises.writeFile(tmp, bytes, { mode: 0o640 });
    await fs.promises.rename(tmp, path.join(dir, name));
  }

  function requireFile(file: UploadedFile | undefined, what: string): UploadedFile {
    if (!file || !file.buffer || file.size === 0) throw errors.validation('file_required', `Envie o arquivo ${what} no campo "file" (multipart/form-data).`);
    return file;
  }

  const service: AdminInfoproductsService = {
    limits: { ebookMaxBytes: deps.ebookMaxBytes, coverMaxBytes: deps.coverMaxBytes },

    async list(query) {
      const f = AdminInfoproductListQuery.parse(query ?? {});
      const qb = base().orderBy('p.id', 'desc').limit(f.limit + 1).offset(f.offset);
      if (f.active === '1' || f.active === 'true') qb.where('p.active', true);
      if (f.active === '0' || f.active === 'false') qb.where('p.active', false);
      if (f.search) {
        const like = `%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        qb.where((w) => {
          w.whereRaw('p.title ILIKE ?', [like]).orWhereRaw('p.sku ILIKE ?', [like]);
          if (/^\d{1,15}$/.test(f.search!)) w.orWhere('p.id', Number(f.search));
        });
      }
      const [rows, categories] = await Promise.all([qb as Promise<Row[]>, db('categories').orderBy(['position', 'id']).select('id', 'slug', 'name')]);
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
          await audit(trx, { actorUserId: adminId, actor: 'admin', action: 'infoproduct.created', entity: 'infoproduct', entityId: p.id, data: { before: null, after: snapshot(p), opened_draw_id: drawId } });
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
          const before = await locked(trx, id);
          const patch: Record<string, unknown> = {};
          for (const k of ['sku', 'title', 'subtitle', 'description', 'cover_url', 'price_cents', 'active'] as const) if (cmd[k] !== undefined) patch[k] = cmd[k];
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
          const drawId = after.active && ((!before.active && cmd.open_draw !== false) || cmd.open_draw === true) ? await openDrawOf(trx, after) : null;
          await audit(trx, { actorUserId: adminId, actor: 'admin', action: 'infoproduct.updated', entity: 'infoproduct', entityId: id, data: { before: snapshot(before), after: snapshot(after), opened_draw_id: drawId } });
          deps.readCache.invalidateAllAfterCommit(trx);
        }),
      );
      return get(id);
    },

    async archive(adminId, id) {
      await db.transaction(async (trx) => {
        const before = await locked(trx, id);
        if (!before.active) return; // already archived: nothing changes, nothing to audit
        await refuseArchivingMain(trx, id);
        const [after] = await trx('infoproducts').where({ id }).update({ active: false, updated_at: trx.fn.now() }).returning('*');
        await audit(trx, { actorUserId: adminId, actor: 'admin', action: 'infoproduct.archived', entity: 'infoproduct', entityId: id, data: { before: snapshot(before), after: snapshot(after) } });
        deps.readCache.invalidateAllAfterCommit(trx);
      });
      return get(id);
    },

    async uploadFile(adminId, id, raw) {
      const file = requireFile(raw, 'PDF');
      if (file.size > deps.ebookMaxBytes) throw errors.validation('file_too_large', `O PDF pode ter no máximo ${Math.floor(deps.ebookMaxBytes / (1024 * 1024)) || 1} MB.`);
      if (file.buffer.subarray(0, 5).toString('latin1') !== '%PDF-') throw errors.validation('not_a_pdf', 'O arquivo não é um PDF.');
      await get(id); // 404 before writing anything to disk
      const sha = createHash('sha256').update(file.buffer).digest('hex');
      const name = `ip${id}-${sha.slice(0, 16)}.pdf`;
      await store(ebookDir, name, file.buffer);
      let old: string | null = null;
      try {
        await db.transaction(async (trx) => {
          const before = await locked(trx, id);
          old = before.file_url;
          const [after] = await trx('infoproducts').where({ id }).update({ file_url: name, file_sha256: sha, updated_at: trx.fn.now() }).returning('*');
          await audit(trx, {
            actorUserId: adminId,
            actor: 'admin',
            action: 'infoproduct.file_uploaded',
            entity: 'infoproduct',
            entityId: id,
            data: { before: { file_url: before.file_url, file_sha256: before.file_sha256 }, after: { file_url: after.file_url, file_sha256: sha }, size: file.size, original_name: file.originalname ?? null },
          });
          deps.readCache.invalidateAllAfterCommit(trx);
        });
      } catch (e) {
        await dropIfUnused(ebookDir, 'file_url', name, name);
        throw e;
      }
      if (old && old !== name) await dropIfUnused(ebookDir, 'file_url', old, path.basename(old));
      logger.info({ adminId, infoproductId: id, size: file.size }, 'admin: e-book PDF uploaded');
      return get(id);
    },

    async uploadCover(adminId, id, raw) {
      const file = requireFile(raw, 'da capa');
      if (file.size > deps.coverMaxBytes) throw errors.validation('file_too_large', `A capa pode ter no máximo ${Math.floor(deps.coverMaxBytes / (1024 * 1024)) || 1} MB.`);
      const kind = COVER_KINDS.find((k) => k.test(file.buffer));
      if (!kind) {
        if (looksLikeSvg(file.buffer)) throw errors.validation('svg_not_accepted', 'Capas em SVG não são aceitas. Envie PNG, JPEG ou WebP.');
        throw errors.validation('not_an_image', 'A capa deve ser uma imagem PNG, JPEG ou WebP.');
      }
      await get(id);
      const sha = createHash('sha256').update(file.buffer).digest('hex');
      const name = `ip${id}-${sha.slice(0, 16)}.${kind.ext}`;
      const url = COVERS_URL_PREFIX + name;
      await store(coverDir, name, file.buffer);
      let old: string | null = null;
      try {
        await db.transaction(async (trx) => {
          const before = await locked(trx, id);
          old = before.cover_url;
          const [after] = await trx('infoproducts').where({ id }).update({ cover_url: url, updated_at: trx.fn.now() }).returning('*');
          await audit(trx, {
            actorUserId: adminId,
            actor: 'admin',
            action: 'infoproduct.cover_uploaded',
            entity: 'infoproduct',
            entityId: id,
            data: { before: { cover_url: before.cover_url }, after: { cover_url: after.cover_url }, size: file.size, type: kind.type, sha256: sha },
          });
          deps.readCache.invalidateAllAfterCommit(trx);
        });
      } catch (e) {
        await dropIfUnused(coverDir, 'cover_url', url, name);
        throw e;
      }
      const oldName = old ? (old as string) : null;
      if (oldName && oldName !== url && oldName.startsWith(COVERS_URL_PREFIX)) await dropIfUnused(coverDir, 'cover_url', oldName, oldName.slice(COVERS_URL_PREFIX.length));
      return get(id);
    },

    async coverFile(name) {
      const missing = () => errors.notFound('cover_not_found', 'Capa não encontrada.');
      const m = COVER_NAME_RE.exec(name);
      if (!m) throw missing();
      const file = path.join(coverDir, name);
      try {
        const st = await fs.promises.stat(file);
        if (!st.isFile()) throw missing();
        return { file, size: st.size, type: COVER_KINDS.find((k) => k.ext === m[1])!.type };
      } catch {
        throw missing();
      }
    },
  };

  /** The dashboard's main series cannot leave the store (its 'NOVO SORTEIO' would open draws of a hidden product). */
  async function refuseArchivingMain(trx: Trx, id: number) {
    const cfg = await readAppConfig(trx);
    if (cfg.main_infoproduct_id === id)
      throw errors.conflict('main_series', 'Este e-book é a série principal do painel e não pode ser arquivado. Escolha outra série principal antes.');
  }

  return service;
}

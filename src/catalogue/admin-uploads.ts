import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Db, Trx } from '../platform/db';
import { errors } from '../platform/errors';
import { audit } from '../platform/audit';
import type { ReadCache } from '../platform/read-cache';
import type { Logger } from '../platform/logger';
import type { AdminInfoproduct } from '../shared/api/admin-infoproducts';

/**
 * The e-book's uploads (account spec §5):
 * - The PDF is set only by the upload (`file_url`/`file_sha256` of a body are ignored): it is
 *   checked by its magic bytes, hashed (sha256 stored) and kept in the private e-book storage, from
 *   where only the customer-area download (catalogue/ebooks.ts) serves it to buyers.
 * - Covers: PNG, JPEG or WebP by their magic bytes, kept in the cover storage and served publicly
 *   under /api/covers/. SVG is refused: it can carry scripts and we do not sanitize it.
 * The file is written first (under its hash's name), then the row changes in one transaction with
 * its audit entry; the file it replaced is deleted after the commit when no product refers to it.
 */

export interface UploadedFile {
  buffer: Buffer;
  originalname?: string;
  size: number;
}

/** The kinds of cover image accepted, told apart by their first bytes (never by name or the client's type). */
const COVER_KINDS = [
  {
    ext: 'png',
    type: 'image/png',
    test: (b: Buffer) => b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  },
  { ext: 'jpg', type: 'image/jpeg', test: (b: Buffer) => b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  {
    ext: 'webp',
    type: 'image/webp',
    test: (b: Buffer) =>
      b.length >= 12 && b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  },
] as const;
export const COVER_NAME_RE = /^ip\d{1,15}-[0-9a-f]{16}\.(png|jpg|webp)$/;
export const COVERS_URL_PREFIX = '/api/covers/';

const looksLikeSvg = (b: Buffer) =>
  /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE\s+svg|<svg[\s>])/i.test(
    b
      .subarray(0, 4096)
      .toString('utf8')
      .replace(/^\uFEFF/, ''),
  );

export interface Uploads {
  uploadFile(adminId: number, id: number, file: UploadedFile | undefined): Promise<AdminInfoproduct>;
  uploadCover(adminId: number, id: number, file: UploadedFile | undefined): Promise<AdminInfoproduct>;
  /** A public cover file by its stored name (GET /api/covers/{name}). */
  coverFile(name: string): Promise<{ file: string; size: number; type: string }>;
}

export interface UploadsDeps {
  db: Db;
  readCache: ReadCache;
  logger: Logger;
  ebookStorageDir: string;
  coverStorageDir: string;
  ebookMaxBytes: number;
  coverMaxBytes: number;
}

/** `get` answers the product (404 when it does not exist); `locked` reads its row FOR UPDATE in `trx`. */
export function createUploads(
  deps: UploadsDeps,
  product: {
    get(id: number): Promise<AdminInfoproduct>;
    locked(trx: Trx, id: number): Promise<{ file_url: string | null; cover_url: string | null } & Record<string, unknown>>;
  },
): Uploads {
  const { db, logger } = deps;
  const { get, locked } = product;
  const ebookDir = path.resolve(deps.ebookStorageDir);
  const coverDir = path.resolve(deps.coverStorageDir);

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
    if (!file || !file.buffer || file.size === 0)
      throw errors.validation('file_required', `Envie o arquivo ${what} no campo "file" (multipart/form-data).`);
    return file;
  }

  return {
    async uploadFile(adminId, id, raw) {
      const file = requireFile(raw, 'PDF');
      if (file.size > deps.ebookMaxBytes)
        throw errors.validation('file_too_large', `O PDF pode ter no máximo ${Math.floor(deps.ebookMaxBytes / (1024 * 1024)) || 1} MB.`);
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
          const [after] = await trx('infoproducts')
            .where({ id })
            .update({ file_url: name, file_sha256: sha, updated_at: trx.fn.now() })
            .returning('*');
          await audit(trx, {
            actorUserId: adminId,
            actor: 'admin',
            action: 'infoproduct.file_uploaded',
            entity: 'infoproduct',
            entityId: id,
            data: {
              before: { file_url: before.file_url, file_sha256: before.file_sha256 },
              after: { file_url: after.file_url, file_sha256: sha },
              size: file.size,
              original_name: file.originalname ?? null,
            },
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
      if (file.size > deps.coverMaxBytes)
        throw errors.validation('file_too_large', `A capa pode ter no máximo ${Math.floor(deps.coverMaxBytes / (1024 * 1024)) || 1} MB.`);
      const kind = COVER_KINDS.find((k) => k.test(file.buffer));
      if (!kind) {
        if (looksLikeSvg(file.buffer))
          throw errors.validation('svg_not_accepted', 'Capas em SVG não são aceitas. Envie PNG, JPEG ou WebP.');
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
            data: {
              before: { cover_url: before.cover_url },
              after: { cover_url: after.cover_url },
              size: file.size,
              type: kind.type,
              sha256: sha,
            },
          });
          deps.readCache.invalidateAllAfterCommit(trx);
        });
      } catch (e) {
        await dropIfUnused(coverDir, 'cover_url', url, name);
        throw e;
      }
      const oldName = old ? (old as string) : null;
      if (oldName && oldName !== url && oldName.startsWith(COVERS_URL_PREFIX))
        await dropIfUnused(coverDir, 'cover_url', oldName, oldName.slice(COVERS_URL_PREFIX.length));
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
}

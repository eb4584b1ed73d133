import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { Id } from '../platform/validation';
import type { Db } from '../platform/db';
import { DomainError, errors } from '../platform/errors';
import type { Logger } from '../platform/logger';
import type { EbookLink } from '../shared/api/account';
import { isAdminRow } from '../auth/serializers';

/**
 * E-book delivery (RULES RF5). A buyer (an approved e-book payment or admin grant of the
 * product, or numbers owned in one of its draws) gets the PDF; admins too. Files live
 * in EBOOK_STORAGE_DIR; the name comes from infoproducts.file_url (never from the
 * request) and the bytes must match file_sha256. The link handed to the browser is
 * signed (HMAC-SHA256 with APP_SECRET over user, sku and expiry) and lives ≤ 10 minutes,
 * so it works in a new tab without a bearer header.
 */
export const LINK_TTL_SECONDS = 600;

export const Sku = z
  .string()
  .trim()
  .min(1, 'E-book inválido.')
  .max(120, 'E-book inválido.')
  .regex(/^[A-Za-z0-9._-]+$/, 'E-book inválido.');

export const DrawIdParam = Id('Sorteio inválido.');

const LinkQuery = z.object({
  u: z.string().regex(/^\d{1,15}$/),
  exp: z.string().regex(/^\d{1,12}$/),
  sig: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
});

const FILE_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.pdf$/i;

export interface EbookFile {
  stream: Readable;
  size: number;
  filename: string;
}

export interface EbooksService {
  linkForDraw(userId: number, isAdmin: boolean, drawId: unknown): Promise<EbookLink>;
  /**
   * Who may download: the bearer user, the user a valid signed link names, or the session
   * cookie's user. `user`: the bearer's; `cookieUser`: the session cookie's, asked for only when there is neither
   * a bearer nor a signed link (a link names its own user, whatever cookie the browser holds).
   */
  download(o: {
    sku: unknown;
    user: { id: number; isAdmin: boolean } | null;
    cookieUser?: () => Promise<{ id: number; isAdmin: boolean } | null>;
    query: Record<string, unknown>;
  }): Promise<EbookFile>;
  sign(userId: number, sku: string, exp: number): string;
}

interface ProductFileRow {
  id: number;
  sku: string | null;
  title: string;
  file_url: string | null;
  file_sha256: string | null;
}

const forbiddenLink = (code: 'invalid_link' | 'link_expired') =>
  new DomainError(
    'forbidden',
    code,
    code === 'link_expired' ? 'O link de download expirou. Gere um novo na sua área.' : 'Link de download inválido.',
  );

export function createEbooksService(deps: {
  db: Db;
  appSecret: string;
  storageDir: string;
  adminEmails: string[];
  logger: Logger;
  now?: () => number;
}): EbooksService {
  const { db, logger } = deps;
  const now = deps.now ?? Date.now;
  const storageDir = path.resolve(deps.storageDir);
  /** Verified files: path + size + mtime + inode → the sha256 they had. */
  const verified = new Map<string, string>();

  function sign(userId: number, sku: string, exp: number) {
    return createHmac('sha256', deps.appSecret).update(`ebook-download\n${userId}\n${sku}\n${exp}`).digest('base64url');
  }

  /**
   * The e-book right (RULES RF5): a paid purchase of that product
   * that is still approved (refunded and charged-back ones no longer count, nor one held for
   * review), or a number of one of its draws whose sale still counts (not voided by a refund).
   */
  async function isBuyer(userId: number, productId: number): Promise<boolean> {
    const r = await db.raw(
      `SELECT EXISTS (SELECT 1 FROM payments WHERE user_id = ? AND infoproduct_id = ? AND status = 'approved' AND NOT fulfilment_on_hold AND kind IN ('infoproduct', 'admin'))
           OR EXISTS (SELECT 1 FROM number_sales s JOIN draws d ON d.id = s.draw_id
                       LEFT JOIN payments p ON p.id = s.payment_id
                       WHERE s.user_id = ? AND d.infoproduct_id = ? AND s.voided_at IS NULL
                         AND (p.id IS NULL OR p.status NOT IN ('refunded', 'charged_back'))) AS ok`,
      [userId, productId, userId, productId],
    );
    return r.rows[0].ok === true;
  }

  async function mustBeBuyer(userId: number, isAdmin: boolean, productId: number) {
    if (isAdmin || (await isBuyer(userId, productId))) return;
    throw errors.forbidden('Este e-book é liberado para quem comprou. Compre o e-book para baixá-lo.');
  }

  async function sha256Of(file: string): Promise<string> {
    const hash = createHash('sha256');
    for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
    return hash.digest('hex');
  }

  const unavailable = () =>
    new DomainError('unavailable', 'ebook_unavailable', 'O arquivo deste e-book está indisponível no momento. Tente mais tarde.');

  /** The verified file of a product, or 503 (logged) when it is missing or does not match its sha256. */
  async function openFile(p: ProductFileRow): Promise<EbookFile> {
    const name = p.file_url ? path.basename(p.file_url) : '';
    if (!FILE_NAME_RE.test(name)) {
      logger.error({ productId: p.id }, 'e-book file name is not a plain .pdf name');
      throw unavailable();
    }
    const file = path.join(storageDir, name);
    if (!file.startsWith(storageDir + path.sep)) throw unavailable();
    let st: fs.Stats;
    try {
      st = await fs.promises.stat(file);
    } catch {
      logger.error({ productId: p.id, file: name }, 'e-book file missing from storage');
      throw unavailable();
    }
    if (!st.isFile() || !p.file_sha256) {
      logger.error({ productId: p.id, file: name }, 'e-book file is not a regular file or has no file_sha256 to check');
      throw unavailable();
    }
    const key = `${file}:${st.size}:${st.mtimeMs}:${st.ino}`;
    let sha = verified.get(key);
    if (!sha) {
      sha = await sha256Of(file);
      verified.set(key, sha);
      if (verified.size > 200) verified.delete(verified.keys().next().value as string);
    }
    if (sha !== p.file_sha256) {
      logger.error({ productId: p.id, file: name }, 'e-book file does not match its file_sha256: refusing to serve it');
      throw unavailable();
    }
    return { stream: fs.createReadStream(file), size: st.size, filename: name };
  }

  return {
    sign,

    async linkForDraw(userId, isAdmin, rawDrawId) {
      const drawId = DrawIdParam.parse(rawDrawId);
      const draw = await db('draws').where({ id: drawId }).first('id', 'infoproduct_id');
      if (!draw) throw errors.notFound('draw_not_found', 'Sorteio não encontrado.');
      const p: ProductFileRow | undefined = draw.infoproduct_id
        ? await db('infoproducts').where({ id: draw.infoproduct_id }).first('id', 'sku', 'title', 'file_url', 'file_sha256')
        : undefined;
      if (!p || !p.sku || !p.file_url) throw errors.notFound('ebook_not_found', 'Este sorteio não tem e-book para baixar.');
      await mustBeBuyer(userId, isAdmin, p.id);
      const exp = Math.floor(now() / 1000) + LINK_TTL_SECONDS;
      const qs = new URLSearchParams({ u: String(userId), exp: String(exp), sig: sign(userId, p.sku, exp) });
      return {
        title: p.title,
        sku: p.sku,
        url: `/api/ebooks/${encodeURIComponent(p.sku)}/download?${qs}`,
        expires_at: new Date(exp * 1000).toISOString(),
      };
    },

    async download(o) {
      const sku = Sku.parse(o.sku);
      const q = o.query;
      let userId: number;
      let isAdmin = false;
      if (q.u !== undefined || q.exp !== undefined || q.sig !== undefined) {
        const link = LinkQuery.safeParse(q);
        if (!link.success) throw forbiddenLink('invalid_link');
        const u = Number(link.data.u);
        const exp = Number(link.data.exp);
        const expected = Buffer.from(sign(u, sku, exp));
        const given = Buffer.from(link.data.sig);
        if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw forbiddenLink('invalid_link');
        const nowS = Math.floor(now() / 1000);
        if (exp <= nowS || exp > nowS + LINK_TTL_SECONDS + 60) throw forbiddenLink('link_expired');
        // A link is its user's: another logged-in user cannot use it.
        if (o.user && o.user.id !== u) throw forbiddenLink('invalid_link');
        userId = u;
        // Without a bearer header the link's user is read from the database (an admin's link works too).
        const row = await db('users').where({ id: u }).first('is_admin', 'role', 'email');
        if (!row) throw forbiddenLink('invalid_link');
        isAdmin = isAdminRow(row, deps.adminEmails);
      } else {
        const user = o.user ?? (await o.cookieUser?.()) ?? null;
        if (!user) throw errors.unauthenticated('Faça login para baixar o e-book.');
        userId = user.id;
        isAdmin = user.isAdmin;
      }
      const p: ProductFileRow | undefined = await db('infoproducts').where({ sku }).first('id', 'sku', 'title', 'file_url', 'file_sha256');
      if (!p) throw errors.notFound('ebook_not_found', 'E-book não encontrado.');
      // The rights are checked at download time too: a refund after the link was made ends them.
      await mustBeBuyer(userId, isAdmin, p.id);
      if (!p.file_url) throw errors.notFound('ebook_not_found', 'Este e-book não tem arquivo para baixar.');
      const file = await openFile(p);
      logger.info({ userId, productId: p.id, viaLink: q.sig !== undefined }, 'e-book downloaded');
      return file;
    },
  };
}

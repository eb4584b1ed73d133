import fs from 'node:fs';
import multer from 'multer';
import type { Context } from 'koa';
import { body, requireAdmin } from '../platform/http/context';
import { AdminInfoproductId, type AdminInfoproductsService, type UploadedFile } from './admin';
import { routes, adminRoutes } from '../platform/http/routes';

/** The admin console's e-books API. Listed for the route-guard table test. */
export const ADMIN_INFOPRODUCTS_ROUTES = [
  { method: 'GET', path: '/api/admin/infoproducts' },
  { method: 'POST', path: '/api/admin/infoproducts' },
  { method: 'GET', path: '/api/admin/infoproducts/:id' },
  { method: 'PUT', path: '/api/admin/infoproducts/:id' },
  { method: 'DELETE', path: '/api/admin/infoproducts/:id' },
  { method: 'POST', path: '/api/admin/infoproducts/:id/file' },
  { method: 'POST', path: '/api/admin/infoproducts/:id/cover' },
] as const;

/**
 * Reads one multipart file into memory (multer memory storage) with a size limit: a larger file
 * answers 413, a malformed form 400, both as JSON. Runs after the admin check, so an anonymous or
 * customer request is refused before any byte of the upload is buffered.
 */
async function readUpload(ctx: Context, maxBytes: number): Promise<UploadedFile | undefined> {
  const m = multer({ storage: multer.memoryStorage(), limits: { fileSize: maxBytes, files: 1, fields: 20, parts: 21 } }).any();
  const req = ctx.req as typeof ctx.req & { files?: Express.Multer.File[] };
  try {
    await new Promise<void>((resolve, reject) => m(req as never, ctx.res as never, (err?: unknown) => (err ? reject(err) : resolve())));
  } catch (e) {
    const err = e as { code?: string; name?: string };
    if (err.code === 'LIMIT_FILE_SIZE') {
      ctx.status = 413;
      ctx.body = { error: 'payload_too_large', message: `O arquivo pode ter no máximo ${Math.floor(maxBytes / (1024 * 1024)) || 1} MB.` };
      return undefined;
    }
    ctx.status = 400;
    ctx.body = {
      error: 'invalid_upload',
      message:
        err.code === 'LIMIT_FILE_COUNT' || err.code === 'LIMIT_UNEXPECTED_FILE'
          ? 'Envie um arquivo por vez.'
          : 'Envio inválido. Mande o arquivo como multipart/form-data no campo "file".',
    };
    return undefined;
  }
  const f = req.files?.[0];
  return f ? { buffer: f.buffer, originalname: f.originalname, size: f.size } : { buffer: Buffer.alloc(0), size: 0 };
}

export function adminInfoproductsRoutes(s: { adminInfoproducts: AdminInfoproductsService }) {
  const r = adminRoutes();
  const a = s.adminInfoproducts;

  r.get('/infoproducts', 'admin', async (ctx) => {
    ctx.body = await a.list(ctx.query);
  });
  r.post('/infoproducts', 'admin', async (ctx) => {
    ctx.status = 201;
    ctx.body = await a.create(requireAdmin(ctx).id, body(ctx));
  });
  r.get('/infoproducts/:id', 'admin', async (ctx) => {
    ctx.body = await a.get(AdminInfoproductId.parse(ctx.params.id));
  });
  r.put('/infoproducts/:id', 'admin', async (ctx) => {
    ctx.body = await a.update(requireAdmin(ctx).id, AdminInfoproductId.parse(ctx.params.id), body(ctx));
  });
  r.delete('/infoproducts/:id', 'admin', async (ctx) => {
    ctx.body = await a.archive(requireAdmin(ctx).id, AdminInfoproductId.parse(ctx.params.id));
  });
  r.post('/infoproducts/:id/file', 'admin', async (ctx) => {
    const id = AdminInfoproductId.parse(ctx.params.id);
    const file = await readUpload(ctx, a.limits.ebookMaxBytes);
    if (file) ctx.body = await a.uploadFile(requireAdmin(ctx).id, id, file);
  });
  r.post('/infoproducts/:id/cover', 'admin', async (ctx) => {
    const id = AdminInfoproductId.parse(ctx.params.id);
    const file = await readUpload(ctx, a.limits.coverMaxBytes);
    if (file) ctx.body = await a.uploadCover(requireAdmin(ctx).id, id, file);
  });
  return r;
}

/** Uploaded covers, public (the product image): named by content, so cached for a year. */
export function coverRoutes(s: { adminInfoproducts: AdminInfoproductsService }) {
  const r = routes();
  r.get('/covers/:name', 'public', async (ctx) => {
    const f = await s.adminInfoproducts.coverFile(String(ctx.params.name));
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
    ctx.type = f.type;
    ctx.length = f.size;
    ctx.body = fs.createReadStream(f.file);
  });
  return r;
}
